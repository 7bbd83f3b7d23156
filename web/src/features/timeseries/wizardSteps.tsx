import Alert from '@mui/material/Alert';
import Autocomplete from '@mui/material/Autocomplete';
import Box from '@mui/material/Box';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import InfoGrid from '../../components/InfoGrid';
import type { useDataset } from '../datasets/api';
import { DriftDefaultAlarmNote, DriftDefaultNote } from './driftDefault';
import DriftSuggestion from './DriftSuggestion';
import NormalPeriodChart from './NormalPeriodChart';
import { list, STATS, type TsFormState } from './wizardForm';

type DatasetDetail = NonNullable<ReturnType<typeof useDataset>['data']>;

/** What every step of the time-series wizard gets. */
export interface StepProps {
  datasetId: string;
  d: DatasetDetail;
  form: TsFormState;
}

/** Name, time column, label and signals. */
export function DataStep({ form }: StepProps) {
  const { t } = useTranslation('timeseries');
  const { f, set, mode, columns, timeChoices, kindOf, timeKind, signalChoices } = form;
  return (
    <Box sx={{ display: 'grid', gap: 2, maxWidth: 720 }}>
      <TextField label={t('wizard.name')} value={f.name} onChange={(e) => set({ name: e.target.value })} required />
      {!timeChoices.length && <Alert severity="error">{t('wizard.noTimeColumn')}</Alert>}
      <TextField select label={t('wizard.timeColumn', { context: timeKind })} helperText={t('wizard.timeHelp', { context: timeKind })} value={f.time} onChange={(e) => set({ time: e.target.value })} required>
        {timeChoices.map((c) => (
          <MenuItem key={c} value={c}>
            {c}
            <Typography component="span" variant="body2" color="text.secondary" sx={{ ml: 1 }}>
              ({t(`wizard.kind_${kindOf(c)}`)})
            </Typography>
          </MenuItem>
        ))}
      </TextField>
      <TextField select label={mode === 'supervised' ? t('wizard.label') : t('wizard.labelOptional')} helperText={t('wizard.labelHelp')} value={f.label} onChange={(e) => set({ label: e.target.value })} required={mode === 'supervised'}>
        {mode === 'unsupervised' && <MenuItem value="">{t('wizard.none')}</MenuItem>}
        {columns
          .filter((c) => c.name !== f.time)
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
        value={f.signals.filter((s) => signalChoices.includes(s))}
        onChange={(_, v) => set({ signals: v })}
        limitTags={12}
        renderInput={(params) => <TextField {...params} label={t('wizard.signals')} helperText={t('wizard.signalsHelp')} />}
      />
    </Box>
  );
}

/** What the models learn from: the normal period (unsupervised) or the training share (supervised). */
export function PeriodStep({ datasetId, d, form }: StepProps) {
  const { t } = useTranslation('timeseries');
  const { f, set, mode, timeIsDatetime, normalDefault } = form;
  if (mode === 'supervised') {
    return (
      <Box sx={{ display: 'grid', gap: 2, maxWidth: 720 }}>
        <TextField label={t('wizard.splitRatio')} helperText={t('wizard.splitHelp')} value={f.split} onChange={(e) => set({ split: e.target.value })} />
      </Box>
    );
  }
  return (
    <Box sx={{ display: 'grid', gap: 2, maxWidth: 1100 }}>
      <Typography variant="subtitle2">{t('wizard.normalMode')}</Typography>
      <RadioGroup row value={f.normalMode} onChange={(e) => set({ normalMode: e.target.value as 'rows' | 'range' })}>
        <FormControlLabel value="rows" control={<Radio />} label={t('wizard.firstRows')} />
        <FormControlLabel value="range" control={<Radio />} label={t('wizard.range')} />
      </RadioGroup>
      {f.normalMode === 'rows' ? (
        <Box sx={{ display: 'grid', gap: 1 }}>
          <TextField label={t('wizard.rows')} value={f.rows} onChange={(e) => set({ rows: e.target.value, rowsTouched: true })} slotProps={{ htmlInput: { inputMode: 'numeric' } }} sx={{ maxWidth: 320 }} />
          {normalDefault.data && !f.rowsTouched && (
            <Alert severity={normalDefault.data.source === 'first_half' ? 'warning' : 'info'} data-testid="normal-default-source">
              {t(`wizard.normalDefault.${normalDefault.data.source}`, { rows: normalDefault.data.rows.toLocaleString(), total: normalDefault.data.total.toLocaleString(), label: f.label })}
            </Alert>
          )}
          <Typography variant="body2" color="text.secondary">
            {t('wizard.heldBackNote')}
          </Typography>
        </Box>
      ) : (
        <Box sx={{ display: 'flex', gap: 2 }}>
          <TextField label={t('wizard.from')} value={f.from} onChange={(e) => set({ from: e.target.value })} placeholder={timeIsDatetime ? '2020-03-09 10:14:33' : '1'} />
          <TextField label={t('wizard.to')} value={f.to} onChange={(e) => set({ to: e.target.value })} />
        </Box>
      )}
      {f.time && f.time === d.datetime_column ? (
        <NormalPeriodChart
          datasetId={datasetId}
          columns={f.signals}
          from={f.normalMode === 'range' ? f.from : ''}
          to={f.normalMode === 'range' ? f.to : ''}
          firstRowsEnd={f.normalMode === 'rows' && normalDefault.data && !f.rowsTouched ? normalDefault.data.end : null}
          onRange={(a, b) => set({ normalMode: 'range', from: a, to: b })}
        />
      ) : (
        <Typography variant="body2" color="text.secondary">
          {t('wizard.chartNeedsDatetime')}
        </Typography>
      )}
    </Box>
  );
}

/** Lags, rolling windows, resampling and slowly drifting signals. */
export function FeaturesStep({ form }: StepProps) {
  const { t } = useTranslation('timeseries');
  const { f, set, timeIsDatetime, driftChosen, dd } = form;
  return (
    <Box sx={{ display: 'grid', gap: 2, maxWidth: 720 }}>
      <TextField label={t('wizard.lags')} value={f.lags} onChange={(e) => set({ lags: e.target.value })} placeholder="1, 2" />
      <TextField label={t('wizard.windows')} helperText={t('wizard.windowsHelp')} value={f.windows} onChange={(e) => set({ windows: e.target.value })} placeholder="10, 5min" />
      <TextField
        label={t('wizard.resample')}
        helperText={timeIsDatetime ? t('wizard.resampleHelp') : t('wizard.resampleNeedsDatetime')}
        disabled={!timeIsDatetime}
        value={f.resample}
        onChange={(e) => set({ resample: e.target.value })}
        placeholder="1s, 5min"
      />
      <Box>
        <Typography variant="subtitle2">{t('wizard.stats')}</Typography>
        {STATS.map((st) => (
          <FormControlLabel
            key={st}
            control={<Checkbox checked={f.stats.includes(st)} onChange={(e) => set({ stats: STATS.filter((x) => (x === st ? e.target.checked : f.stats.includes(x))) })} />}
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
        <DriftSuggestion d={dd} chosen={driftChosen} rows={f.driftRows} />
        <Autocomplete
          multiple
          disableCloseOnSelect
          options={f.signals}
          value={driftChosen}
          onChange={(_, v) => set({ drift: v })}
          renderInput={(params) => <TextField {...params} label={t('wizard.driftSignals')} placeholder={driftChosen.length ? '' : t('wizard.driftNone')} />}
        />
        <TextField
          label={t('wizard.driftRows')}
          helperText={t('wizard.driftRowsHelp')}
          disabled={!driftChosen.length}
          value={f.driftRows}
          onChange={(e) => set({ driftRows: e.target.value })}
          slotProps={{ htmlInput: { inputMode: 'numeric' } }}
          placeholder="45"
          sx={{ maxWidth: 480 }}
        />
      </Box>
    </Box>
  );
}

/** The detectors, each with its hyper-parameters (blank: the catalogue's default). */
export function ModelsStep({ form }: StepProps) {
  const { t } = useTranslation('timeseries');
  const { f, set, algorithms, dd } = form;
  return (
    <Box sx={{ display: 'grid', gap: 1 }}>
      <DriftDefaultAlarmNote d={dd} chosen={f.chosen} />
      {algorithms.map((a) => (
        <Box key={a.key} sx={{ border: '1px solid', borderColor: 'divider', borderRadius: 1, p: 1 }}>
          <FormControlLabel
            control={<Checkbox checked={f.chosen.includes(a.key)} onChange={(e) => set({ chosen: e.target.checked ? [...f.chosen, a.key] : f.chosen.filter((k) => k !== a.key) })} />}
            label={a.label}
          />
          {f.chosen.includes(a.key) && (
            <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', pl: 4 }}>
              {a.params.map((p) => (
                <TextField
                  key={p.name}
                  size="small"
                  label={p.label}
                  helperText={t('wizard.paramHelp', { help: p.help ?? '', low: p.low, high: p.high, context: p.help ? 'help' : undefined })}
                  placeholder={String(p.default)}
                  value={f.params[a.key]?.[p.name] ?? ''}
                  onChange={(e) => set({ params: { ...f.params, [a.key]: { ...(f.params[a.key] ?? {}), [p.name]: e.target.value } } })}
                />
              ))}
            </Box>
          )}
        </Box>
      ))}
    </Box>
  );
}

export function PreviewStep({ form }: StepProps) {
  const { t } = useTranslation('timeseries');
  const { f, mode, algorithms, timeKind, timeIsDatetime, driftChosen } = form;
  return (
    <Box data-testid="wizard-summary">
      <InfoGrid
        items={[
          { label: t('wizard.name'), value: f.name, wide: true },
          { label: t('wizard.timeColumn', { context: timeKind }), value: f.time },
          { label: t('details.signals'), value: `${f.signals.length}: ${f.signals.slice(0, 10).join(', ')}${f.signals.length > 10 ? ' …' : ''}`, wide: true },
          { label: t('details.label'), value: f.label || t('wizard.none') },
          { label: t('details.lags'), value: list(f.lags).join(', ') || '—' },
          { label: t('details.windows'), value: list(f.windows).length ? `${list(f.windows).join(', ')} (${f.stats.map((x) => t(`wizard.stat_${x}`)).join(', ')})` : '—' },
          { label: t('details.resample'), value: timeIsDatetime && f.resample.trim() ? f.resample.trim() : t('details.noResample') },
          { label: t('details.drift'), value: driftChosen.length ? t('details.driftValue', { signals: driftChosen.join(', '), rows: f.driftRows.trim() }) : t('details.noDrift'), wide: true },
          mode === 'unsupervised'
            ? { label: t('details.normal'), value: f.normalMode === 'rows' ? t('details.firstRows', { rows: f.rows }) : `${f.from} – ${f.to}`, wide: f.normalMode === 'range' }
            : { label: t('details.split'), value: `${Math.round(Number(f.split) * 100)} %` },
          {
            label: t('details.models'),
            wide: true,
            value: f.chosen
              .map((k) => {
                const a = algorithms.find((x) => x.key === k);
                const named = Object.entries(f.params[k] ?? {})
                  .filter(([, v]) => v.trim() !== '')
                  .map(([n, v]) => `${a?.params.find((x) => x.name === n)?.label ?? n} = ${v.trim()}`);
                return `${a?.label ?? k}${named.length ? ` (${named.join(', ')})` : ''}`;
              })
              .join(' · '),
          },
        ]}
      />
    </Box>
  );
}
