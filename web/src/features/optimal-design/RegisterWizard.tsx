import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import Alert from '@mui/material/Alert';
import Autocomplete from '@mui/material/Autocomplete';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import FormControlLabel from '@mui/material/FormControlLabel';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import Step from '@mui/material/Step';
import StepLabel from '@mui/material/StepLabel';
import Stepper from '@mui/material/Stepper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import { ALGORITHMS, type Algorithm, type Constraint, doeKeys, MODELS, type ModelKind, registerProject, type RegisterSettings, useAllProjects, type VariableType } from './api';
import { decimalsOk } from '@mitate/rules';
import { parseNumber } from './numbers';
import FileField from './FileField';
import { detailsPath } from './ProjectListPage';

interface VarDraft {
  name: string;
  type: VariableType;
  low: string;
  high: string;
  levels: string;
}
interface ConstraintDraft {
  coefficients: string;
  op: '<=' | '>=' | '=';
  total: string;
}
const CLASSICAL_SIZE: Algorithm[] = ['full_factorial', 'fractional_factorial', 'central_composite', 'box_behnken', 'simplex_lattice', 'simplex_centroid'];

function parseCoefficients(text: string): Record<string, number> | null {
  const out: Record<string, number> = {};
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name, value] = part.split('=').map((s) => s.trim());
    const n = Number(value);
    if (!name || !Number.isFinite(n)) return null;
    out[name] = n;
  }
  return Object.keys(out).length ? out : null;
}

export default function RegisterWizard() {
  const { t } = useTranslation('doe');
  usePageTitle(t('new'));
  const navigate = useNavigate();
  const qc = useQueryClient();
  const others = useAllProjects();
  const [step, setStep] = useState(0);
  const [algorithm, setAlgorithm] = useState<Algorithm>('d_optimal');
  const [vars, setVars] = useState<VarDraft[]>([
    { name: 'A', type: 'mixture', low: '0', high: '1', levels: '' },
    { name: 'B', type: 'mixture', low: '0', high: '1', levels: '' },
    { name: 'C', type: 'mixture', low: '0', high: '1', levels: '' },
  ]);
  const [total, setTotal] = useState('1');
  const [constraints, setConstraints] = useState<ConstraintDraft[]>([]);
  const [model, setModel] = useState<ModelKind>('scheffe_quadratic');
  const [terms, setTerms] = useState('');
  const [nRuns, setNRuns] = useState('10');
  const [seed, setSeed] = useState('');
  const [responses, setResponses] = useState('result');
  const [resolution, setResolution] = useState('4');
  const [center, setCenter] = useState('1');
  const [degree, setDegree] = useState('2');
  const [excludeFile, setExcludeFile] = useState<File | null>(null);
  const [tolerance, setTolerance] = useState('0.01');
  const [runsFile, setRunsFile] = useState<File | null>(null);
  const [existing, setExisting] = useState<{ id: string; name: string }[]>([]);
  const [name, setName] = useState('');
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  const [direction, setDirection] = useState<'maximize' | 'minimize'>('maximize');

  const hasMixture = vars.some((v) => v.type === 'mixture');
  const numbers = [total, tolerance, ...vars.flatMap((v) => [v.low, v.high]), ...constraints.map((c) => c.total)];
  const decimalError = numbers.some((x) => !decimalsOk(x));
  const paramsError =
    decimalError ||
    !vars.length ||
    vars.some((v) => !v.name.trim() || ((v.type === 'continuous' || v.type === 'mixture') && (parseNumber(v.low) === undefined || parseNumber(v.high) === undefined))) ||
    constraints.some((c) => !parseCoefficients(c.coefficients) || parseNumber(c.total) === undefined) ||
    (!CLASSICAL_SIZE.includes(algorithm) && !(Number(nRuns) >= 1)) ||
    (algorithm === 'bayesian' && !runsFile); // BO proposes from measured runs

  const settings = (): RegisterSettings => ({
    name: name.trim(),
    comment,
    algorithm,
    n_runs: CLASSICAL_SIZE.includes(algorithm) ? 0 : Number(nRuns),
    ...(seed.trim() ? { seed: Number(seed) } : {}),
    parameters: { resolution: Number(resolution), center: Number(center), degree: Number(degree) },
    variables: vars.map((v) =>
      v.type === 'continuous' || v.type === 'mixture'
        ? { name: v.name.trim(), type: v.type, low: Number(v.low), high: Number(v.high) }
        : { name: v.name.trim(), type: v.type, levels: v.levels.split(',').map((s) => s.trim()).filter(Boolean).map((s) => (v.type === 'discrete' ? Number(s) : s)) },
    ),
    constraints: constraints.map((c): Constraint => ({ type: 'linear', coefficients: parseCoefficients(c.coefficients) ?? {}, op: c.op, total: Number(c.total) })),
    ...(hasMixture ? { mixture_total: Number(total) } : {}),
    model: model === 'custom' ? { kind: model, terms: terms.split(',').map((s) => s.trim()).filter(Boolean) } : { kind: model },
    responses: responses.split(',').map((s) => s.trim()).filter(Boolean),
    exclude_tolerance: Number(tolerance) || 0,
    existing_project_ids: existing.map((e) => e.id),
    bo: algorithm === 'bayesian' ? { response: responses.split(',')[0].trim(), direction } : null,
  });

  async function create() {
    setBusy(true);
    try {
      const p = await registerProject(settings(), { exclude_file: excludeFile, runs_file: runsFile });
      await qc.invalidateQueries({ queryKey: doeKeys.all });
      navigate(detailsPath(p.id));
    } catch {
      // the message dialog has shown the server's reason; the wizard keeps every input
    } finally {
      setBusy(false);
    }
  }

  const setVar = (i: number, patch: Partial<VarDraft>) => setVars(vars.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  const steps = ['algorithm', 'parameters', 'info', 'preview'] as const;
  const canNext = step === 0 || (step === 1 && !paramsError) || (step === 2 && name.trim() !== '');

  return (
    <Box sx={{ maxWidth: 1000 }}>
      <PageHeader title={t('new')} />
      <Stepper activeStep={step} sx={{ mb: 3 }}>
        {steps.map((s) => (
          <Step key={s}>
            <StepLabel>{t(`steps.${s}`)}</StepLabel>
          </Step>
        ))}
      </Stepper>
      <Paper variant="outlined" sx={{ p: 2 }}>
        {step === 0 && (
          <RadioGroup value={algorithm} onChange={(e) => setAlgorithm(e.target.value as Algorithm)} aria-label={t('steps.algorithm')}>
            {ALGORITHMS.map((a) => (
              <FormControlLabel
                key={a}
                value={a}
                control={<Radio />}
                label={
                  <Box sx={{ py: 0.5 }}>
                    <Typography>{t(`algorithm.${a}`)}</Typography>
                    <Typography variant="body2" color="text.secondary">
                      {t(`algorithmHelp.${a}`)}
                    </Typography>
                  </Box>
                }
              />
            ))}
          </RadioGroup>
        )}
        {step === 1 && (
          <Box>
            <Typography variant="subtitle1" sx={{ fontWeight: 600 }}>
              {t('variables')}
            </Typography>
            {vars.map((v, i) => (
              <Box key={i} sx={{ display: 'flex', gap: 1, my: 1, flexWrap: 'wrap', alignItems: 'center' }}>
                <TextField size="small" label={t('variable.name')} value={v.name} onChange={(e) => setVar(i, { name: e.target.value })} slotProps={{ htmlInput: { 'aria-label': `${t('variable.name')} ${i + 1}` } }} />
                <TextField size="small" select label={t('variable.type')} value={v.type} onChange={(e) => setVar(i, { type: e.target.value as VariableType })} sx={{ minWidth: 170 }}>
                  {(['continuous', 'discrete', 'categorical', 'mixture'] as const).map((k) => (
                    <MenuItem key={k} value={k}>
                      {t(`vtype.${k}`)}
                    </MenuItem>
                  ))}
                </TextField>
                {v.type === 'continuous' || v.type === 'mixture' ? (
                  <>
                    <TextField size="small" label={t('variable.low')} value={v.low} error={!decimalsOk(v.low)} onChange={(e) => setVar(i, { low: e.target.value })} slotProps={{ htmlInput: { 'aria-label': `${t('variable.low')} ${v.name}`, inputMode: 'decimal' } }} sx={{ width: 120 }} />
                    <TextField size="small" label={t('variable.high')} value={v.high} error={!decimalsOk(v.high)} onChange={(e) => setVar(i, { high: e.target.value })} slotProps={{ htmlInput: { 'aria-label': `${t('variable.high')} ${v.name}`, inputMode: 'decimal' } }} sx={{ width: 120 }} />
                  </>
                ) : (
                  <TextField size="small" label={t('variable.levels')} value={v.levels} onChange={(e) => setVar(i, { levels: e.target.value })} sx={{ minWidth: 250 }} />
                )}
                <IconButton aria-label={`${t('delete')} ${v.name}`} onClick={() => setVars(vars.filter((_, j) => j !== i))}>
                  <DeleteIcon />
                </IconButton>
              </Box>
            ))}
            <Button startIcon={<AddIcon />} onClick={() => setVars([...vars, { name: String.fromCharCode(65 + vars.length), type: 'continuous', low: '0', high: '1', levels: '' }])}>
              {t('addVariable')}
            </Button>
            {hasMixture && (
              <TextField size="small" label={t('mixtureTotal')} value={total} error={!decimalsOk(total)} onChange={(e) => setTotal(e.target.value)} sx={{ ml: 2, width: 140 }} />
            )}
            <Typography variant="subtitle1" sx={{ fontWeight: 600, mt: 2 }}>
              {t('constraints')}
            </Typography>
            {constraints.map((c, i) => (
              <Box key={i} sx={{ display: 'flex', gap: 1, my: 1, alignItems: 'center' }}>
                <TextField size="small" label={t('coefficients')} helperText={t('constraintHelp')} value={c.coefficients} onChange={(e) => setConstraints(constraints.map((x, j) => (j === i ? { ...x, coefficients: e.target.value } : x)))} sx={{ minWidth: 260 }} />
                <TextField size="small" select value={c.op} onChange={(e) => setConstraints(constraints.map((x, j) => (j === i ? { ...x, op: e.target.value as ConstraintDraft['op'] } : x)))}>
                  {(['<=', '>=', '='] as const).map((o) => (
                    <MenuItem key={o} value={o}>
                      {o === '<=' ? '≤' : o === '>=' ? '≥' : '='}
                    </MenuItem>
                  ))}
                </TextField>
                <TextField size="small" label={t('total')} value={c.total} error={!decimalsOk(c.total)} onChange={(e) => setConstraints(constraints.map((x, j) => (j === i ? { ...x, total: e.target.value } : x)))} sx={{ width: 110 }} />
                <IconButton aria-label={t('delete')} onClick={() => setConstraints(constraints.filter((_, j) => j !== i))}>
                  <DeleteIcon />
                </IconButton>
              </Box>
            ))}
            <Button startIcon={<AddIcon />} onClick={() => setConstraints([...constraints, { coefficients: '', op: '<=', total: '' }])}>
              {t('addConstraint')}
            </Button>
            <Box sx={{ display: 'flex', gap: 2, mt: 2, flexWrap: 'wrap' }}>
              <TextField size="small" select label={t('model')} value={model} onChange={(e) => setModel(e.target.value as ModelKind)} sx={{ minWidth: 220 }}>
                {MODELS.map((m) => (
                  <MenuItem key={m} value={m}>
                    {t(`modelKind.${m}`)}
                  </MenuItem>
                ))}
              </TextField>
              {model === 'custom' && <TextField size="small" label={t('terms')} value={terms} onChange={(e) => setTerms(e.target.value)} sx={{ minWidth: 320 }} />}
              {!CLASSICAL_SIZE.includes(algorithm) && (
                <TextField size="small" label={t('nRuns')} value={nRuns} onChange={(e) => setNRuns(e.target.value)} slotProps={{ htmlInput: { inputMode: 'numeric' } }} sx={{ width: 200 }} />
              )}
              {algorithm === 'fractional_factorial' && <TextField size="small" label={t('resolution')} value={resolution} onChange={(e) => setResolution(e.target.value)} sx={{ width: 120 }} />}
              {(algorithm === 'central_composite' || algorithm === 'box_behnken') && <TextField size="small" label={t('centerPoints')} value={center} onChange={(e) => setCenter(e.target.value)} sx={{ width: 140 }} />}
              {algorithm === 'simplex_lattice' && <TextField size="small" label={t('degree')} value={degree} onChange={(e) => setDegree(e.target.value)} sx={{ width: 140 }} />}
              <TextField size="small" label={t('seed')} value={seed} onChange={(e) => setSeed(e.target.value)} sx={{ width: 120 }} />
              <TextField size="small" label={t('responses')} value={responses} onChange={(e) => setResponses(e.target.value)} sx={{ minWidth: 240 }} />
            </Box>
            <Box sx={{ mt: 2 }}>
              <FileField label={t('excludeFile')} file={excludeFile} onChange={setExcludeFile} testId="exclude-file" />
              <TextField size="small" label={t('tolerance')} value={tolerance} error={!decimalsOk(tolerance)} onChange={(e) => setTolerance(e.target.value)} sx={{ width: 300 }} />
              <FileField label={t('runsFile')} file={runsFile} onChange={setRunsFile} testId="runs-file" />
              {algorithm === 'bayesian' && (
                <TextField size="small" select label={t('direction')} value={direction} onChange={(e) => setDirection(e.target.value as 'maximize' | 'minimize')} sx={{ minWidth: 160, my: 1 }} helperText={t('boNeedsRuns')}>
                  <MenuItem value="maximize">{t('maximize')}</MenuItem>
                  <MenuItem value="minimize">{t('minimize')}</MenuItem>
                </TextField>
              )}
              <Autocomplete
                multiple
                size="small"
                options={(others.data?.items ?? []).map((p) => ({ id: p.id, name: p.name }))}
                getOptionLabel={(o) => o.name}
                isOptionEqualToValue={(a, b) => a.id === b.id}
                value={existing}
                onChange={(_, v) => setExisting(v)}
                renderInput={(params) => <TextField {...params} label={t('existingProjects')} />}
                sx={{ maxWidth: 500, mt: 1 }}
              />
            </Box>
            {decimalError && <Alert severity="error" sx={{ mt: 2 }}>{t('decimals')}</Alert>}
          </Box>
        )}
        {step === 2 && (
          <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 520 }}>
            <TextField label={t('name')} value={name} onChange={(e) => setName(e.target.value)} required />
            <TextField label={t('comment')} value={comment} onChange={(e) => setComment(e.target.value)} multiline minRows={2} />
          </Box>
        )}
        {step === 3 && (
          <Box component="dl" sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', columnGap: 3, rowGap: 1, m: 0 }}>
            {[
              [t('preview.algorithm'), t(`algorithm.${algorithm}`)],
              [t('preview.variables'), settings().variables.map((v) => (v.levels ? `${v.name} {${v.levels.join(', ')}}` : `${v.name} [${v.low}, ${v.high}]`)).join('; ') + (hasMixture ? ` (Σ = ${total})` : '')],
              [t('preview.constraints'), constraints.length ? constraints.map((c) => `${c.coefficients} ${c.op} ${c.total}`).join('; ') : t('preview.none')],
              [t('preview.model'), t(`modelKind.${model}`)],
              [t('preview.runs'), CLASSICAL_SIZE.includes(algorithm) ? '—' : nRuns],
              [t('preview.exclude'), excludeFile ? `${excludeFile.name} (±${tolerance})` : t('preview.none')],
              [t('preview.existing'), runsFile ? runsFile.name : t('preview.none')],
              [t('name'), name],
            ].map(([k, v]) => (
              <Box key={k} sx={{ display: 'contents' }}>
                <Typography component="dt" color="text.secondary">
                  {k}
                </Typography>
                <Typography component="dd" sx={{ m: 0 }}>
                  {v}
                </Typography>
              </Box>
            ))}
          </Box>
        )}
        {busy && (
          <Box sx={{ mt: 2 }}>
            <Typography variant="body2">{t('creating')}</Typography>
            <LinearProgress />
          </Box>
        )}
      </Paper>
      <Box sx={{ display: 'flex', gap: 1, mt: 2 }}>
        <Button disabled={step === 0 || busy} onClick={() => setStep(step - 1)}>
          {t('back')}
        </Button>
        {step < 3 ? (
          <Button variant="contained" disabled={!canNext} onClick={() => setStep(step + 1)}>
            {t('next')}
          </Button>
        ) : (
          <Button variant="contained" disabled={busy} onClick={create}>
            {t('create')}
          </Button>
        )}
      </Box>
    </Box>
  );
}
