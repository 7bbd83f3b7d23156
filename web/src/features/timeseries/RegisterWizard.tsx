import Alert from '@mui/material/Alert';
import Autocomplete from '@mui/material/Autocomplete';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import Step from '@mui/material/Step';
import StepLabel from '@mui/material/StepLabel';
import Stepper from '@mui/material/Stepper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import InfoGrid from '../../components/InfoGrid';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { showSnackbar } from '../../lib/feedback';
import { useDataset } from '../datasets/api';
import { detailsPath, type DriftSuggestBody, modeOf, registerTs, type RegisterBody, type TsType, useNormalDefault, useTsCatalogue } from './api';
import { DriftDefaultAlarmNote, DriftDefaultNote, useDriftDefault } from './driftDefault';
import DriftSuggestion from './DriftSuggestion';
import NormalPeriodChart from './NormalPeriodChart';

// the period the models learn from comes before the windowing: the suggestion of drifting signals looks at it
const STEPS = ['data', 'training', 'features', 'models', 'preview'] as const;
/** The statistics of a rolling window (the server's WINDOW_STATS), all four by default. */
const STATS = ['mean', 'std', 'min', 'max'] as const;
type Stat = (typeof STATS)[number];
const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** /training/time_series_anomaly_detection_{supervised,unsupervised}/register/{dataset_id}. */
export default function RegisterWizard({ type }: { type: TsType }) {
  const { t } = useTranslation('timeseries');
  const { dataset_id: datasetId = '' } = useParams();
  const navigate = useNavigate();
  const mode = modeOf(type);
  usePageTitle(t('wizard.title'));
  const dataset = useDataset(datasetId);
  const catalogue = useTsCatalogue();
  const algorithms = useMemo(() => catalogue.data?.[mode] ?? [], [catalogue.data, mode]);
  const d = dataset.data;
  const columns = useMemo(() => d?.columns ?? [], [d]);
  const timeChoices = columns.filter((c) => ['datetime', 'date', 'integer', 'float'].includes(c.type)).map((c) => c.name);

  const [step, setStep] = useState(0);
  const [name, setName] = useState('');
  const [time, setTime] = useState('');
  // resampling and time spans need dates and times; a whole-number order column (a sample number) counts rows
  const kindOf = (name: string) => (['datetime', 'date'].includes(columns.find((c) => c.name === name)?.type ?? '') ? 'datetime' : 'order');
  const timeIsDatetime = kindOf(time) === 'datetime';
  // the field is named after what orders the rows: a date/time, or a whole number (row number); no choice yet: neutral
  const timeKind = time ? kindOf(time) : undefined;
  const [signals, setSignals] = useState<string[]>([]);
  const [label, setLabel] = useState('');
  const [lags, setLags] = useState('');
  const [windows, setWindows] = useState('');
  const [resample, setResample] = useState('');
  const [stats, setStats] = useState<Stat[]>([...STATS]);
  // slowly drifting signals enter as their change over driftRows rows (none, unless the default below fills them in)
  const [drift, setDrift] = useState<string[]>([]);
  const [driftRows, setDriftRows] = useState('');
  const [normalMode, setNormalMode] = useState<'rows' | 'range'>('rows');
  const [rows, setRows] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [split, setSplit] = useState('0.7');
  const [chosen, setChosen] = useState<string[]>([]);
  const [params, setParams] = useState<Record<string, Record<string, string>>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!d) return;
    setName(`${d.name} · ${t(`types.${type}`)}`);
    const tc = d.datetime_column ?? timeChoices[0] ?? '';
    setTime(tc);
    setSignals(columns.filter((c) => ['integer', 'float'].includes(c.type) && c.name !== tc && !/^(anomaly|label|fault|changepoint)$/i.test(c.name)).map((c) => c.name));
    const guess = columns.find((c) => /^(anomaly|label|fault)$/i.test(c.name));
    if (guess) setLabel(guess.name);
    // until the server's default normal period comes (from the label), the first half
    setRows(String(Math.max(32, Math.floor(Number(d.row_count) / 2))));
    // defaults are set once, when the dataset arrives
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [d]);
  // the default normal period: from the label where there is one, else the first half (the person confirms it)
  const normalDefault = useNormalDefault(datasetId, time, label, mode === 'unsupervised');
  const [rowsTouched, setRowsTouched] = useState(false);
  useEffect(() => {
    if (normalDefault.data && !rowsTouched) setRows(String(normalDefault.data.rows));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [normalDefault.data]);
  useEffect(() => {
    if (algorithms.length && !chosen.length) setChosen([algorithms[0].key]);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [algorithms]);

  const normalBody = (): RegisterBody['normal'] => (mode === 'unsupervised' ? (normalMode === 'rows' ? { mode: 'rows', rows: Number(rows) } : { mode: 'range', start: from, end: to }) : null);
  // what the suggestion of drifting signals looks at: the signals and the period chosen in the steps before
  const suggestBody: DriftSuggestBody = { project_type: type, time_column: time || null, feature_variables: signals, resample: timeIsDatetime ? resample.trim() || null : null, normal: normalBody(), split_ratio: Number(split) };
  const dd = useDriftDefault({ datasetId, body: suggestBody, asking: step >= 1, algorithms, fields: { drift, rows: driftRows, windows, params }, set: { drift: setDrift, rows: setDriftRows, windows: setWindows, params: setParams } });
  if (!d || !catalogue.data) return <PageLoading />;
  const signalChoices = columns.filter((c) => c.name !== time && c.name !== label && c.type !== 'datetime' && c.type !== 'date').map((c) => c.name);

  const driftChosen = drift.filter((s) => signals.includes(s));
  const body = (): RegisterBody => ({
    name,
    project_type: type,
    time_column: time || null,
    feature_variables: signals,
    target_variables: label ? [label] : [],
    lags: list(lags).map(Number),
    windows: list(windows).map((w) => (/^\d+$/.test(w) ? Number(w) : w)),
    resample: resample.trim() || null,
    window_stats: stats,
    drift_signals: driftChosen,
    drift_rows: driftChosen.length ? Number(driftRows) : null,
    normal: normalBody(),
    split_ratio: Number(split),
    models: chosen.map((k) => ({
      algorithm: k,
      params: Object.fromEntries(Object.entries(params[k] ?? {}).filter(([, v]) => v.trim() !== '').map(([n, v]) => [n, Number(v)])),
    })),
  });

  const stepError = (i: number): string | null => {
    if (i === 0 && (!name.trim() || !time || !signals.length || (mode === 'supervised' && !label))) return t('wizard.required');
    if (i === 2 && list(lags).some((x) => !/^\d+$/.test(x))) return t('wizard.lags');
    if (i === 2 && list(windows).length && !stats.length) return t('wizard.statsNeeded');
    if (i === 2 && driftChosen.length && !(/^\d+$/.test(driftRows.trim()) && Number(driftRows) >= 1)) return t('wizard.driftRowsNeeded');
    if (i === 1 && mode === 'unsupervised' && normalMode === 'rows' && !(Number(rows) >= 1)) return t('wizard.required');
    if (i === 1 && mode === 'unsupervised' && normalMode === 'range' && (!from || !to)) return t('wizard.required');
    if (i === 3 && !chosen.length) return t('wizard.required');
    return null;
  };
  // once Next has found a problem, the message follows the fields: it goes when they are put right
  const shownError = error ? stepError(step) : null;
  const next = () => {
    const e = stepError(step);
    setError(e);
    if (!e) setStep(step + 1);
  };
  const create = async () => {
    setBusy(true);
    try {
      const p = await registerTs(datasetId, body());
      showSnackbar(t('wizard.created'), 'success');
      navigate(detailsPath(p.project_id));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Box>
      <PageHeader title={t('wizard.title')} subtitle={`${t(`types.${type}`)} · ${d.name} · ${t('wizard.rowsCount', { count: Number(d.row_count) })}`} />
      <Stepper activeStep={step} sx={{ mb: 3 }} alternativeLabel>
        {STEPS.map((s) => (
          <Step key={s}>
            <StepLabel>{t(`wizard.steps.${s}`)}</StepLabel>
          </Step>
        ))}
      </Stepper>
      <Paper variant="outlined" sx={{ p: 3 }}>
        {step === 0 && (
          <Box sx={{ display: 'grid', gap: 2, maxWidth: 720 }}>
            <TextField label={t('wizard.name')} value={name} onChange={(e) => setName(e.target.value)} required />
            {!timeChoices.length && <Alert severity="error">{t('wizard.noTimeColumn')}</Alert>}
            <TextField select label={t('wizard.timeColumn', { context: timeKind })} helperText={t('wizard.timeHelp', { context: timeKind })} value={time} onChange={(e) => setTime(e.target.value)} required>
              {timeChoices.map((c) => (
                <MenuItem key={c} value={c}>
                  {c}
                  <Typography component="span" variant="body2" color="text.secondary" sx={{ ml: 1 }}>
                    ({t(`wizard.kind_${kindOf(c)}`)})
                  </Typography>
                </MenuItem>
              ))}
            </TextField>
            <TextField select label={mode === 'supervised' ? t('wizard.label') : t('wizard.labelOptional')} helperText={t('wizard.labelHelp')} value={label} onChange={(e) => setLabel(e.target.value)} required={mode === 'supervised'}>
              {mode === 'unsupervised' && <MenuItem value="">{t('wizard.none')}</MenuItem>}
              {columns
                .filter((c) => c.name !== time)
                .map((c) => (
                  <MenuItem key={c.name} value={c.name}>
                    {c.name}
                  </MenuItem>
                ))}
            </TextField>
            <Autocomplete
              multiple
              disableCloseOnSelect
              options={signalChoices}
              value={signals.filter((s) => signalChoices.includes(s))}
              onChange={(_, v) => setSignals(v)}
              limitTags={12}
              renderInput={(params) => <TextField {...params} label={t('wizard.signals')} helperText={t('wizard.signalsHelp')} />}
            />
          </Box>
        )}
        {step === 2 && (
          <Box sx={{ display: 'grid', gap: 2, maxWidth: 720 }}>
            <TextField label={t('wizard.lags')} value={lags} onChange={(e) => setLags(e.target.value)} placeholder="1, 2" />
            <TextField label={t('wizard.windows')} helperText={t('wizard.windowsHelp')} value={windows} onChange={(e) => setWindows(e.target.value)} placeholder="10, 5min" />
            <TextField
              label={t('wizard.resample')}
              helperText={timeIsDatetime ? t('wizard.resampleHelp') : t('wizard.resampleNeedsDatetime')}
              disabled={!timeIsDatetime}
              value={resample}
              onChange={(e) => setResample(e.target.value)}
              placeholder="1s, 5min"
            />
            <Box>
              <Typography variant="subtitle2">{t('wizard.stats')}</Typography>
              {STATS.map((st) => (
                <FormControlLabel
                  key={st}
                  control={<Checkbox checked={stats.includes(st)} onChange={(e) => setStats(STATS.filter((x) => (x === st ? e.target.checked : stats.includes(x))))} />}
                  label={t(`wizard.stat_${st}`)}
                />
              ))}
            </Box>
            <Box component="fieldset" sx={{ border: '1px solid', borderColor: 'divider', borderRadius: 1, p: 2, display: 'grid', gap: 2 }}>
              <Typography component="legend" variant="subtitle2" sx={{ px: 0.5 }}>
                {t('wizard.drift')}
              </Typography>
              <Typography variant="body2" color="text.secondary">
                {t('wizard.driftHelp')}
              </Typography>
              <DriftDefaultNote d={dd} />
              <DriftSuggestion d={dd} chosen={driftChosen} rows={driftRows} />
              <Autocomplete
                multiple
                disableCloseOnSelect
                options={signals}
                value={driftChosen}
                onChange={(_, v) => setDrift(v)}
                renderInput={(params) => <TextField {...params} label={t('wizard.driftSignals')} placeholder={driftChosen.length ? '' : t('wizard.driftNone')} />}
              />
              <TextField
                label={t('wizard.driftRows')}
                helperText={t('wizard.driftRowsHelp')}
                disabled={!driftChosen.length}
                value={driftRows}
                onChange={(e) => setDriftRows(e.target.value)}
                slotProps={{ htmlInput: { inputMode: 'numeric' } }}
                placeholder="45"
                sx={{ maxWidth: 480 }}
              />
            </Box>
          </Box>
        )}
        {step === 1 && mode === 'unsupervised' && (
          <Box sx={{ display: 'grid', gap: 2, maxWidth: 1100 }}>
            <Typography variant="subtitle2">{t('wizard.normalMode')}</Typography>
            <RadioGroup row value={normalMode} onChange={(e) => setNormalMode(e.target.value as 'rows' | 'range')}>
              <FormControlLabel value="rows" control={<Radio />} label={t('wizard.firstRows')} />
              <FormControlLabel value="range" control={<Radio />} label={t('wizard.range')} />
            </RadioGroup>
            {normalMode === 'rows' ? (
              <Box sx={{ display: 'grid', gap: 1 }}>
                <TextField
                  label={t('wizard.rows')}
                  value={rows}
                  onChange={(e) => {
                    setRowsTouched(true);
                    setRows(e.target.value);
                  }}
                  slotProps={{ htmlInput: { inputMode: 'numeric' } }}
                  sx={{ maxWidth: 320 }}
                />
                {normalDefault.data && !rowsTouched && (
                  <Alert severity={normalDefault.data.source === 'first_half' ? 'warning' : 'info'} data-testid="normal-default-source">
                    {t(`wizard.normalDefault.${normalDefault.data.source}`, { rows: normalDefault.data.rows.toLocaleString(), total: normalDefault.data.total.toLocaleString(), label })}
                  </Alert>
                )}
                <Typography variant="body2" color="text.secondary">
                  {t('wizard.heldBackNote')}
                </Typography>
              </Box>
            ) : (
              <Box sx={{ display: 'flex', gap: 2 }}>
                <TextField label={t('wizard.from')} value={from} onChange={(e) => setFrom(e.target.value)} placeholder={timeIsDatetime ? '2020-03-09 10:14:33' : '1'} />
                <TextField label={t('wizard.to')} value={to} onChange={(e) => setTo(e.target.value)} />
              </Box>
            )}
            {time && time === d.datetime_column ? (
              <NormalPeriodChart
                datasetId={datasetId}
                columns={signals}
                from={normalMode === 'range' ? from : ''}
                to={normalMode === 'range' ? to : ''}
                firstRowsEnd={normalMode === 'rows' && normalDefault.data && !rowsTouched ? normalDefault.data.end : null}
                onRange={(a, b) => {
                  setNormalMode('range');
                  setFrom(a);
                  setTo(b);
                }}
              />
            ) : (
              <Typography variant="body2" color="text.secondary">
                {t('wizard.chartNeedsDatetime')}
              </Typography>
            )}
          </Box>
        )}
        {step === 1 && mode === 'supervised' && (
          <Box sx={{ display: 'grid', gap: 2, maxWidth: 720 }}>
            <TextField label={t('wizard.splitRatio')} helperText={t('wizard.splitHelp')} value={split} onChange={(e) => setSplit(e.target.value)} />
          </Box>
        )}
        {step === 3 && (
          <Box sx={{ display: 'grid', gap: 1 }}>
            <DriftDefaultAlarmNote d={dd} chosen={chosen} />
            {algorithms.map((a) => (
              <Box key={a.key} sx={{ border: '1px solid #eee', borderRadius: 1, p: 1 }}>
                <FormControlLabel
                  control={<Checkbox checked={chosen.includes(a.key)} onChange={(e) => setChosen(e.target.checked ? [...chosen, a.key] : chosen.filter((k) => k !== a.key))} />}
                  label={a.label}
                />
                {chosen.includes(a.key) && (
                  <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', pl: 4 }}>
                    {a.params.map((p) => (
                      <TextField
                        key={p.name}
                        size="small"
                        label={p.label}
                        helperText={t('wizard.paramHelp', { help: p.help ?? '', low: p.low, high: p.high, context: p.help ? 'help' : undefined })}
                        placeholder={String(p.default)}
                        value={params[a.key]?.[p.name] ?? ''}
                        onChange={(e) => setParams({ ...params, [a.key]: { ...(params[a.key] ?? {}), [p.name]: e.target.value } })}
                      />
                    ))}
                  </Box>
                )}
              </Box>
            ))}
          </Box>
        )}
        {step === 4 && (
          <Box data-testid="wizard-summary">
            <InfoGrid
              items={[
                { label: t('wizard.name'), value: name, wide: true },
                { label: t('wizard.timeColumn', { context: timeKind }), value: time },
                { label: t('details.signals'), value: `${signals.length}: ${signals.slice(0, 10).join(', ')}${signals.length > 10 ? ' …' : ''}`, wide: true },
                { label: t('details.label'), value: label || t('wizard.none') },
                { label: t('details.lags'), value: list(lags).join(', ') || '—' },
                { label: t('details.windows'), value: list(windows).length ? `${list(windows).join(', ')} (${stats.map((x) => t(`wizard.stat_${x}`)).join(', ')})` : '—' },
                { label: t('details.resample'), value: timeIsDatetime && resample.trim() ? resample.trim() : t('details.noResample') },
                { label: t('details.drift'), value: driftChosen.length ? t('details.driftValue', { signals: driftChosen.join(', '), rows: driftRows.trim() }) : t('details.noDrift'), wide: true },
                mode === 'unsupervised'
                  ? { label: t('details.normal'), value: normalMode === 'rows' ? t('details.firstRows', { rows }) : `${from} – ${to}`, wide: normalMode === 'range' }
                  : { label: t('details.split'), value: `${Math.round(Number(split) * 100)} %` },
                {
                  label: t('details.models'),
                  wide: true,
                  value: chosen
                    .map((k) => {
                      const a = algorithms.find((x) => x.key === k);
                      const set = Object.entries(params[k] ?? {}).filter(([, v]) => v.trim() !== '');
                      const named = set.map(([n, v]) => `${a?.params.find((x) => x.name === n)?.label ?? n} = ${v.trim()}`);
                      return `${a?.label ?? k}${named.length ? ` (${named.join(', ')})` : ''}`;
                    })
                    .join(' · '),
                },
              ]}
            />
          </Box>
        )}
        {shownError && (
          <Alert severity="error" sx={{ mt: 2 }}>
            {shownError}
          </Alert>
        )}
        <Box sx={{ display: 'flex', gap: 1, mt: 3 }}>
          <Button disabled={step === 0} onClick={() => { setError(null); setStep(step - 1); }}>
            {t('wizard.back')}
          </Button>
          {step < STEPS.length - 1 ? (
            <Button variant="contained" onClick={next}>
              {t('wizard.next')}
            </Button>
          ) : (
            <Button variant="contained" onClick={create} disabled={busy}>
              {t('wizard.create')}
            </Button>
          )}
        </Box>
      </Paper>
    </Box>
  );
}
