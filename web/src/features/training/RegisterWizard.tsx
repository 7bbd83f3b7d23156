import Alert from '@mui/material/Alert';
import Autocomplete from '@mui/material/Autocomplete';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Chip from '@mui/material/Chip';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormHelperText from '@mui/material/FormHelperText';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Step from '@mui/material/Step';
import StepButton from '@mui/material/StepButton';
import Stepper from '@mui/material/Stepper';
import Switch from '@mui/material/Switch';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';

/** Below this many test rows the report makes repeated cross-validation the headline (engine trainer.SMALL_TEST). */
const SMALL_TEST = 30;
const CV_ONLY_MAX_ROWS = 2000;
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import InfoGrid from '../../components/InfoGrid';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { showSnackbar } from '../../lib/feedback';
import { formatInteger, formatUnique } from '../../lib/format';
import { useDataset } from '../datasets/api';
import { columnTypeLabel } from '../datasets/labels';
import { type AlgorithmSpec, detailsPath, type ParamSpec, type ProjectType, registerProject, type RegisterBody, trainProject, TYPE_INFO, useCatalogue } from './api';
import { NS } from './labels';
import { defaultModels, paramDecimalsOk, parseDecimal, parseFolds, parseIntList, stepErrors } from './validate';

const STEPS = ['dataset', 'overview', 'preprocessing', 'parameters', 'models', 'preview'] as const;
type ParamValues = Record<string, string>;

function ParamField({ p, value, onChange, id }: { p: ParamSpec; value: string; onChange: (v: string) => void; id: string }) {
  const { t } = useTranslation(NS);
  const defaultText = p.choice_labels?.[(p.choices ?? []).findIndex((c) => String(c) === String(p.default))] ?? String(p.default);
  const help = [p.help, t('wizard.default', { value: defaultText }), p.tune ? t('wizard.tuned') : ''].filter(Boolean).join(' · ');
  if (p.kind === 'bool') {
    return (
      <Box sx={{ minWidth: 200, maxWidth: 320 }}>
        <FormControlLabel control={<Switch checked={value === 'true'} onChange={(e) => onChange(String(e.target.checked))} />} label={p.label} />
        {p.help && (
          <Typography variant="caption" color="text.secondary" component="p">
            {p.help}
          </Typography>
        )}
      </Box>
    );
  }
  if (p.kind === 'choice') {
    return (
      <TextField select size="small" label={p.label} value={value} onChange={(e) => onChange(e.target.value)} helperText={help} sx={{ minWidth: 180, maxWidth: 320 }} id={id}>
        {(p.choices ?? []).map((c, i) => (
          <MenuItem key={String(c)} value={String(c)}>
            {p.choice_labels?.[i] ?? String(c)}
          </MenuItem>
        ))}
      </TextField>
    );
  }
  const n = Number(value);
  const bad = value.trim() !== '' && (!Number.isFinite(n) || (p.kind === 'int' && !Number.isInteger(n)) || !paramDecimalsOk(value));
  return (
    <TextField
      size="small"
      label={p.label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      error={bad}
      helperText={bad ? t(!paramDecimalsOk(value) ? 'validation.decimals' : 'validation.number') : help}
      sx={{ width: 260 }}
      id={id}
      slotProps={{ htmlInput: { inputMode: 'decimal' } }}
    />
  );
}

const defaultsOf = (a: AlgorithmSpec): ParamValues => Object.fromEntries(a.params.map((p) => [p.name, String(p.default)]));

function toParams(a: AlgorithmSpec, v: ParamValues): Record<string, number | string | boolean | null> {
  const out: Record<string, number | string | boolean | null> = {};
  for (const p of a.params) {
    const s = v[p.name];
    if (s === undefined || s === String(p.default)) continue; // defaults travel as absent: the engine's own default
    if (p.kind === 'bool') out[p.name] = s === 'true';
    else if (p.kind === 'choice') out[p.name] = s;
    else out[p.name] = s.trim() === '' ? null : Number(s);
  }
  return out;
}

/** SPEC §2 training project wizard: dataset overview, training overview, preprocessing, training parameters, model selection, preview. */
export default function RegisterWizard({ type }: { type: ProjectType }) {
  const { t } = useTranslation(NS);
  const { dataset_id: datasetId = '' } = useParams();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const info = TYPE_INFO[type];
  const typeLabel = t(`types.${type}`);
  usePageTitle(t('wizard.title', { type: typeLabel }));
  const dataset = useDataset(datasetId);
  const catalogue = useCatalogue();
  const algorithms = useMemo(() => catalogue.data?.types.find((x) => x.type === type)?.algorithms ?? [], [catalogue.data, type]);

  const [step, setStep] = useState(0);
  const [shown, setShown] = useState<Set<number>>(new Set());
  const [name, setName] = useState('');
  const [target, setTarget] = useState<string | null>(null);
  const [features, setFeatures] = useState<string[]>([]);
  const [variance, setVariance] = useState('0');
  const [balance, setBalance] = useState(false);
  const [lags, setLags] = useState(type === 'soft_sensor' ? '1, 2, 3' : '');
  const [windows, setWindows] = useState(type === 'soft_sensor' ? '5' : '');
  const [split, setSplit] = useState('0.85');
  const [splitTime, setSplitTime] = useState('');
  const [cv, setCv] = useState(() => t('wizard.cvDefaultWord'));
  const [cvOnly, setCvOnly] = useState(false);
  const [autoTune, setAutoTune] = useState(false);
  const [trials, setTrials] = useState('10');
  const [significance, setSignificance] = useState('0.05');
  // null until the user ticks or unticks a model: until then the catalogue's default is ticked
  const [picked, setChosen] = useState<string[] | null>(null);
  const chosen = useMemo(() => picked ?? defaultModels(algorithms.map((a) => a.key)), [picked, algorithms]);
  const [params, setParams] = useState<Record<string, ParamValues>>({});
  const [busy, setBusy] = useState(false);

  const d = dataset.data;
  const columns = d?.columns ?? [];
  // the default name is set once, when the dataset arrives (a name typed before then stays)
  useEffect(() => {
    if (d) setName((prev) => prev || `${d.name} · ${typeLabel}`);
  }, [d, typeLabel]);
  const numeric = (c: string) => ['integer', 'float'].includes(columns.find((x) => x.name === c)?.type ?? '');
  const featureChoices = columns.filter((c) => c.name !== target && c.name !== d?.datetime_column && c.type !== 'datetime' && c.type !== 'date').map((c) => c.name);
  const targetChoices = columns
    .filter((c) => c.name !== d?.datetime_column && c.type !== 'datetime')
    .filter((c) => (type === 'regression' || type === 'soft_sensor' ? numeric(c.name) : true))
    .map((c) => c.name);

  const splitParsed = parseDecimal(split, 0.5, 0.95);
  const varParsed = parseDecimal(variance, 0, 1e12);
  const sigParsed = parseDecimal(significance, 0.0000001, 0.5);
  const lagList = parseIntList(lags, 1);
  const windowList = parseIntList(windows, 2);
  const trialsN = Number(trials);
  const trialsOk = Number.isInteger(trialsN) && trialsN >= 1 && trialsN <= 1000;

  const errors = stepErrors({ name, target, features, models: chosen, cv, supervised: info.supervised, targetOptional: !!info.targetOptional });
  if (varParsed.error || lagList === null || windowList === null) (errors[2] ??= []).push('validation.number');
  if ((info.supervised && splitParsed.error) || sigParsed.error || !trialsOk) (errors[3] ??= []).push('validation.number');
  // Cross-validation only is offered for small regression / discriminant tables (as the server allows: CV_ONLY_MAX_ROWS).
  const cvOnlyOffered = (type === 'regression' || type === 'discriminant_analysis') && !!d && d.row_count <= CV_ONLY_MAX_ROWS;
  const testRows = d && splitParsed.value != null && !splitTime ? d.row_count - Math.round(d.row_count * splitParsed.value) : null;
  const stepHasError = (i: number) => shown.has(i) && !!errors[i]?.length;

  const go = (next: number) => {
    if (next > step && errors[step]?.length) {
      setShown(new Set([...shown, step]));
      return;
    }
    setStep(next);
  };

  const submit = async (train: boolean) => {
    const all = Object.keys(errors).map(Number);
    if (all.length) {
      setShown(new Set([...shown, ...all]));
      setStep(all[0]);
      return;
    }
    const body: RegisterBody = {
      name: name.trim(),
      target_variables: target ? [target] : [],
      feature_variables: features,
      split_ratio: splitParsed.value ?? 0.85,
      split_time: type === 'soft_sensor' && splitTime ? splitTime : null,
      cross_validation: parseFolds(cv) ?? 'default',
      evaluation: cvOnlyOffered && cvOnly ? 'cv_only' : 'holdout',
      significance_level: sigParsed.value ?? 0.05,
      number_of_trials: trialsN,
      auto_tune: autoTune,
      balance_data: balance,
      variance_threshold: varParsed.value ?? 0,
      lags: lagList ?? [],
      windows: windowList ?? [],
      models: chosen.map((k) => {
        const a = algorithms.find((x) => x.key === k)!;
        return { algorithm: k, params: toParams(a, params[k] ?? defaultsOf(a)) };
      }),
    };
    setBusy(true);
    try {
      const p = await registerProject(type, datasetId, body);
      if (train) await trainProject(p.project_id);
      await qc.invalidateQueries({ queryKey: ['training'] });
      showSnackbar(train ? t('details.started') : p.name);
      navigate(detailsPath(type, p.project_id));
    } finally {
      setBusy(false);
    }
  };

  if (dataset.isLoading || catalogue.isLoading) return <PageLoading />;
  if (!d) return null;

  const errorBox = (i: number) =>
    stepHasError(i) ? (
      <Alert severity="error" sx={{ mb: 2 }}>
        {errors[i]!.map((k) => (
          <div key={k}>{t(k, { lo: 0, hi: 0 })}</div>
        ))}
      </Alert>
    ) : null;

  const body = () => {
    switch (STEPS[step]) {
      case 'dataset':
        return (
          <>
            <InfoGrid
              items={[
                { label: t('list.dataset'), value: d.name },
                { label: t('wizard.rows'), value: formatInteger(d.row_count) },
                { label: t('wizard.columns'), value: formatInteger(d.column_count) },
                { label: t('wizard.datetimeColumn'), value: d.datetime_column ?? '' },
                { label: t('wizard.preprocessed'), value: d.preprocessed ? t('wizard.yes') : t('wizard.no') },
              ]}
            />
            {d.preprocessed && (
              <Alert severity="info" sx={{ mt: 2 }}>
                {t('wizard.condition')}
              </Alert>
            )}
            <Table size="small" sx={{ mt: 2 }}>
              <TableHead>
                <TableRow>
                  <TableCell>{t('wizard.column')}</TableCell>
                  <TableCell>{t('wizard.columnType')}</TableCell>
                  <TableCell align="right">{t('wizard.missing')}</TableCell>
                  <TableCell align="right" title={t('stats.unique_estimate')}>
                    {t('wizard.unique')}
                  </TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {columns.map((c) => (
                  <TableRow key={c.name}>
                    <TableCell>{c.name}</TableCell>
                    <TableCell>{columnTypeLabel(t, c.type)}</TableCell>
                    <TableCell align="right">{formatInteger(c.missing ?? 0)}</TableCell>
                    <TableCell align="right">{formatUnique(c)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </>
        );
      case 'overview':
        return (
          <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 720 }}>
            {errorBox(1)}
            <TextField label={t('wizard.name')} required value={name} onChange={(e) => setName(e.target.value)} slotProps={{ htmlInput: { maxLength: 200 } }} />
            {(info.supervised || info.targetOptional) && (
              <Autocomplete
                options={targetChoices}
                value={target}
                onChange={(_, v) => {
                  setTarget(v);
                  setFeatures((f) => f.filter((x) => x !== v));
                }}
                renderInput={(p) => <TextField {...p} label={info.supervised ? t('wizard.target') : t('wizard.targetOptional')} required={info.supervised} />}
              />
            )}
            <Box>
              <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1 }}>
                <Typography variant="subtitle2" component="h3">
                  {t('wizard.features')} *
                </Typography>
                <Chip size="small" label={t('wizard.featuresCount', { n: features.length })} />
                <Box sx={{ flex: 1 }} />
                <Button size="small" onClick={() => setFeatures(featureChoices)}>
                  {t('wizard.selectAll')}
                </Button>
                <Button size="small" onClick={() => setFeatures([])}>
                  {t('wizard.selectNone')}
                </Button>
              </Box>
              <Paper variant="outlined" sx={{ p: 1, maxHeight: 320, overflow: 'auto', display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(200px, 1fr))' }} role="group" aria-label={t('wizard.features')}>
                {featureChoices.map((c) => (
                  <FormControlLabel
                    key={c}
                    control={<Checkbox size="small" checked={features.includes(c)} onChange={(e) => setFeatures(e.target.checked ? [...features, c] : features.filter((x) => x !== c))} />}
                    label={c}
                    sx={{ minWidth: 0, '& .MuiFormControlLabel-label': { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' } }}
                  />
                ))}
              </Paper>
            </Box>
          </Box>
        );
      case 'preprocessing':
        return (
          <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 640 }}>
            <Alert severity="info">{t('wizard.scaling')}</Alert>
            {d.preprocessed && <Alert severity="info">{t('wizard.condition')}</Alert>}
            <TextField
              label={t('wizard.varianceThreshold')}
              value={variance}
              onChange={(e) => setVariance(e.target.value)}
              error={!!varParsed.error}
              helperText={varParsed.error ? t(varParsed.error, varParsed.params) : t('wizard.varianceHelp')}
            />
            {type === 'discriminant_analysis' && (
              <Box>
                <FormControlLabel control={<Switch checked={balance} onChange={(e) => setBalance(e.target.checked)} />} label={t('wizard.balance')} />
                <FormHelperText>{t('wizard.balanceHelp')}</FormHelperText>
              </Box>
            )}
            {type === 'soft_sensor' && (
              <>
                <TextField label={t('wizard.lags')} value={lags} onChange={(e) => setLags(e.target.value)} error={lagList === null} helperText={lagList === null ? t('validation.list') : t('wizard.lagsHelp')} />
                <TextField
                  label={t('wizard.windows')}
                  value={windows}
                  onChange={(e) => setWindows(e.target.value)}
                  error={windowList === null}
                  helperText={windowList === null ? t('validation.list') : t('wizard.windowsHelp')}
                />
              </>
            )}
          </Box>
        );
      case 'parameters':
        return (
          <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 640 }}>
            {errorBox(3)}
            {cvOnlyOffered && (
              <FormControlLabel
                control={<Switch checked={cvOnly} onChange={(e) => setCvOnly(e.target.checked)} />}
                label={t('wizard.cvOnly')}
              />
            )}
            {info.supervised && testRows !== null && testRows < SMALL_TEST && !(cvOnlyOffered && cvOnly) && (
              <Alert severity="warning">{t(cvOnlyOffered ? 'wizard.smallTestCvOnly' : 'wizard.smallTest', { rows: testRows, min: SMALL_TEST })}</Alert>
            )}
            {info.supervised && (
              <TextField
                label={t('wizard.splitRatio')}
                value={split}
                disabled={cvOnlyOffered && cvOnly}
                onChange={(e) => setSplit(e.target.value)}
                error={!!splitParsed.error}
                helperText={splitParsed.error ? t(splitParsed.error, splitParsed.params) : `${t('wizard.splitHelp')} ${type === 'soft_sensor' ? t('wizard.splitHelpTime') : ''}`}
              />
            )}
            {type === 'soft_sensor' && d.datetime_column && (
              <TextField label={t('wizard.splitTime')} type="datetime-local" value={splitTime} onChange={(e) => setSplitTime(e.target.value)} helperText={t('wizard.splitTimeHelp')} slotProps={{ inputLabel: { shrink: true } }} />
            )}
            {info.supervised && (
              <TextField
                label={t('wizard.cv')}
                value={cv}
                onChange={(e) => setCv(e.target.value)}
                error={shown.has(3) && parseFolds(cv) === null}
                helperText={parseFolds(cv) === null ? t('validation.cv') : t('wizard.cvHelp')}
              />
            )}
            <FormControlLabel control={<Switch checked={autoTune} onChange={(e) => setAutoTune(e.target.checked)} />} label={t('wizard.autoTune')} />
            <TextField
              label={t('wizard.trials')}
              value={trials}
              disabled={!autoTune}
              onChange={(e) => setTrials(e.target.value)}
              error={!trialsOk}
              helperText={!trialsOk ? t('validation.range', { lo: 1, hi: 1000 }) : ' '}
            />
            {type === 'regression' && (
              <TextField
                label={t('wizard.significance')}
                value={significance}
                onChange={(e) => setSignificance(e.target.value)}
                error={!!sigParsed.error}
                helperText={sigParsed.error ? t(sigParsed.error, sigParsed.params) : ' '}
              />
            )}
          </Box>
        );
      case 'models':
        return (
          <Box sx={{ display: 'flex', flexDirection: 'column', gap: 1 }}>
            {errorBox(4)}
            {algorithms.map((a) => {
              const on = chosen.includes(a.key);
              const values = params[a.key] ?? defaultsOf(a);
              return (
                <Paper key={a.key} variant="outlined" sx={{ p: 1.5, borderColor: on ? 'primary.main' : undefined }}>
                  <FormControlLabel
                    control={<Checkbox checked={on} onChange={(e) => setChosen(e.target.checked ? [...chosen, a.key] : chosen.filter((x) => x !== a.key))} />}
                    label={<Typography sx={{ fontWeight: 500 }}>{a.label}</Typography>}
                  />
                  {on && a.params.length > 0 && (
                    <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, mt: 1, ml: 4, alignItems: 'flex-start' }} role="group" aria-label={`${a.label} ${t('wizard.hyperparameters')}`}>
                      {a.params.map((p) => (
                        <ParamField key={p.name} id={`${a.key}-${p.name}`} p={p} value={values[p.name] ?? ''} onChange={(v) => setParams({ ...params, [a.key]: { ...values, [p.name]: v } })} />
                      ))}
                      <Button size="small" onClick={() => setParams({ ...params, [a.key]: defaultsOf(a) })}>
                        {t('wizard.reset')}
                      </Button>
                    </Box>
                  )}
                </Paper>
              );
            })}
          </Box>
        );
      default:
        return (
          <>
            <InfoGrid
              items={[
                { label: t('wizard.name'), value: name },
                { label: t('list.type'), value: typeLabel },
                { label: t('list.dataset'), value: d.name },
                ...(info.supervised || target ? [{ label: info.supervised ? t('wizard.target') : t('wizard.targetOptional'), value: target ?? '' }] : []),
                { label: t('wizard.features'), value: features.join(', '), wide: true },
                ...(info.supervised
                  ? [{ label: t('wizard.splitRatio'), value: cvOnlyOffered && cvOnly ? t('wizard.cvOnly') : splitTime || split }, { label: t('wizard.cv'), value: cv }]
                  : []),
                { label: t('wizard.autoTune'), value: autoTune ? `${t('wizard.yes')} (${trials})` : t('wizard.no') },
                ...(type === 'soft_sensor' ? [{ label: t('wizard.lags'), value: lags }, { label: t('wizard.windows'), value: windows }] : []),
                ...(type === 'discriminant_analysis' ? [{ label: t('wizard.balance'), value: balance ? t('wizard.yes') : t('wizard.no') }] : []),
                { label: t('wizard.varianceThreshold'), value: variance },
                { label: t('wizard.modelsChosen'), value: chosen.map((k) => algorithms.find((a) => a.key === k)?.label ?? k).join(', '), wide: true },
              ]}
            />
            {Object.keys(errors).length > 0 && shown.size > 0 && (
              <Alert severity="error" sx={{ mt: 2 }}>
                {Object.values(errors)
                  .flat()
                  .map((k) => (
                    <div key={k}>{t(k, { lo: 0, hi: 0 })}</div>
                  ))}
              </Alert>
            )}
          </>
        );
    }
  };

  return (
    <>
      <PageHeader title={t('wizard.title', { type: typeLabel })} subtitle={t(`typeHelp.${type}`)} />
      <Stepper nonLinear activeStep={step} alternativeLabel sx={{ mb: 3 }}>
        {STEPS.map((s, i) => (
          <Step key={s} completed={i < step && !errors[i]?.length}>
            <StepButton onClick={() => go(i)} optional={stepHasError(i) ? <Typography variant="caption" color="error">!</Typography> : undefined}>
              {t(`wizard.steps.${s}`)}
            </StepButton>
          </Step>
        ))}
      </Stepper>
      <Paper variant="outlined" sx={{ p: 2.5, mb: 2 }}>
        <Typography variant="h6" component="h2" sx={{ mb: 2 }}>
          {t(`wizard.steps.${STEPS[step]}`)}
        </Typography>
        {body()}
      </Paper>
      <Box sx={{ display: 'flex', gap: 1, justifyContent: 'flex-end' }}>
        <Button disabled={step === 0 || busy} onClick={() => setStep(step - 1)}>
          {t('wizard.back')}
        </Button>
        {step < STEPS.length - 1 ? (
          <Button variant="contained" onClick={() => go(step + 1)}>
            {t('wizard.next')}
          </Button>
        ) : (
          <>
            <Button variant="outlined" disabled={busy} onClick={() => void submit(false)}>
              {t('wizard.register')}
            </Button>
            <Button variant="contained" disabled={busy} onClick={() => void submit(true)}>
              {t('wizard.registerAndTrain')}
            </Button>
          </>
        )}
      </Box>
    </>
  );
}
