import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/DeleteOutlined';
import Alert from '@mui/material/Alert';
import Autocomplete from '@mui/material/Autocomplete';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import FormControlLabel from '@mui/material/FormControlLabel';
import IconButton from '@mui/material/IconButton';
import MenuItem from '@mui/material/MenuItem';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import { decimalsOk } from '@mitate/rules';
import { ALGORITHMS, type Algorithm, MODELS, type ModelKind, type VariableType } from './api';
import FileField from './FileField';
import { CLASSICAL_SIZE, type ConstraintDraft } from './form';
import type { DoeWizardState } from './RegisterWizard';

/** Every step of the design wizard reads and writes the one form of the wizard. */
export interface StepProps {
  w: DoeWizardState;
}

/** The design algorithm, each with what it is for. */
export function AlgorithmStep({ w }: StepProps) {
  const { t } = useTranslation('optimalDesign');
  const { algorithm, setAlgorithm } = w;
  return (
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
  );
}

/** Variables, constraints, model, run count, and the files of runs to exclude or build on. */
export function ParametersStep({ w }: StepProps) {
  const { t } = useTranslation('optimalDesign');
  const { others, algorithm, vars, setVars, setVar, total, setTotal, constraints, setConstraints, model, setModel, terms, setTerms, nRuns, setNRuns, seed, setSeed, responses, setResponses, resolution, setResolution, center, setCenter, degree, setDegree, excludeFile, setExcludeFile, tolerance, setTolerance, runsFile, setRunsFile, existing, setExisting, direction, setDirection, hasMixture, decimalError } = w;
  return (
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
  );
}

/** Name and comment. */
export function InfoStep({ w }: StepProps) {
  const { t } = useTranslation('optimalDesign');
  const { name, setName, comment, setComment } = w;
  return (
      <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 520 }}>
        <TextField label={t('name')} value={name} onChange={(e) => setName(e.target.value)} required />
        <TextField label={t('comment')} value={comment} onChange={(e) => setComment(e.target.value)} multiline minRows={2} />
      </Box>
  );
}

/** Everything the design will be computed with. */
export function PreviewStep({ w }: StepProps) {
  const { t } = useTranslation('optimalDesign');
  const { algorithm, total, constraints, model, nRuns, excludeFile, tolerance, runsFile, name, hasMixture, settings } = w;
  return (
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
  );
}
