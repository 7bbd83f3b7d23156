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
import Switch from '@mui/material/Switch';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import InfoGrid from '../../components/InfoGrid';
import { formatInteger, formatUnique } from '../../lib/format';
import type { useDataset } from '../datasets/api';
import { columnTypeLabel } from '../datasets/labels';
import type { AlgorithmSpec, ParamSpec, ProjectType } from './api';
import { NS } from './labels';
import { paramDecimalsOk, parseFolds } from './validate';
import { defaultsOf, SMALL_TEST, type TrainingFormState } from './wizardForm';

type DatasetDetail = NonNullable<ReturnType<typeof useDataset>['data']>;

/** What every step of the training wizard gets: the dataset, the form, and whether its errors are shown. */
export interface StepProps {
  type: ProjectType;
  d: DatasetDetail;
  form: TrainingFormState;
  algorithms: AlgorithmSpec[];
  /** the step's errors once Next or Create found them */
  shownErrors: string[];
}

function ErrorBox({ keys }: { keys: string[] }) {
  const { t } = useTranslation(NS);
  if (!keys.length) return null;
  return (
    <Alert severity="error" sx={{ mb: 2 }}>
      {keys.map((k) => (
        <div key={k}>{t(k, { lo: 0, hi: 0 })}</div>
      ))}
    </Alert>
  );
}

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

export function DatasetStep({ d }: StepProps) {
  const { t } = useTranslation(NS);
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
          {d.columns.map((c) => (
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
}

export function OverviewStep({ form, shownErrors }: StepProps) {
  const { t } = useTranslation(NS);
  const { f, set, info, featureChoices, targetChoices } = form;
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 720 }}>
      <ErrorBox keys={shownErrors} />
      <TextField label={t('wizard.name')} required value={f.name} onChange={(e) => set({ name: e.target.value })} slotProps={{ htmlInput: { maxLength: 200 } }} />
      {(info.supervised || info.targetOptional) && (
        <Autocomplete
          options={targetChoices}
          value={f.target}
          onChange={(_, v) => set({ target: v, features: f.features.filter((x) => x !== v) })}
          renderInput={(p) => <TextField {...p} label={info.supervised ? t('wizard.target') : t('wizard.targetOptional')} required={info.supervised} />}
        />
      )}
      <Box>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1 }}>
          <Typography variant="subtitle2" component="h3">
            {t('wizard.features')} *
          </Typography>
          <Chip size="small" label={t('wizard.featuresCount', { n: f.features.length })} />
          <Box sx={{ flex: 1 }} />
          <Button size="small" onClick={() => set({ features: featureChoices })}>
            {t('wizard.selectAll')}
          </Button>
          <Button size="small" onClick={() => set({ features: [] })}>
            {t('wizard.selectNone')}
          </Button>
        </Box>
        <Paper variant="outlined" sx={{ p: 1, maxHeight: 320, overflow: 'auto', display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(200px, 1fr))' }} role="group" aria-label={t('wizard.features')}>
          {featureChoices.map((c) => (
            <FormControlLabel
              key={c}
              control={<Checkbox size="small" checked={f.features.includes(c)} onChange={(e) => set({ features: e.target.checked ? [...f.features, c] : f.features.filter((x) => x !== c) })} />}
              label={c}
              sx={{ minWidth: 0, '& .MuiFormControlLabel-label': { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' } }}
            />
          ))}
        </Paper>
      </Box>
    </Box>
  );
}

export function PreprocessingStep({ type, d, form }: StepProps) {
  const { t } = useTranslation(NS);
  const { f, set, parsed } = form;
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 640 }}>
      <Alert severity="info">{t('wizard.scaling')}</Alert>
      {d.preprocessed && <Alert severity="info">{t('wizard.condition')}</Alert>}
      <TextField
        label={t('wizard.varianceThreshold')}
        value={f.variance}
        onChange={(e) => set({ variance: e.target.value })}
        error={!!parsed.variance.error}
        helperText={parsed.variance.error ? t(parsed.variance.error, parsed.variance.params) : t('wizard.varianceHelp')}
      />
      {type === 'discriminant_analysis' && (
        <Box>
          <FormControlLabel control={<Switch checked={f.balance} onChange={(e) => set({ balance: e.target.checked })} />} label={t('wizard.balance')} />
          <FormHelperText>{t('wizard.balanceHelp')}</FormHelperText>
        </Box>
      )}
      {type === 'soft_sensor' && (
        <>
          <TextField label={t('wizard.lags')} value={f.lags} onChange={(e) => set({ lags: e.target.value })} error={parsed.lags === null} helperText={parsed.lags === null ? t('validation.list') : t('wizard.lagsHelp')} />
          <TextField
            label={t('wizard.windows')}
            value={f.windows}
            onChange={(e) => set({ windows: e.target.value })}
            error={parsed.windows === null}
            helperText={parsed.windows === null ? t('validation.list') : t('wizard.windowsHelp')}
          />
        </>
      )}
    </Box>
  );
}

export function ParametersStep({ type, d, form, shownErrors }: StepProps) {
  const { t } = useTranslation(NS);
  const { f, set, info, parsed, cvOnlyOffered, testRows, trialsOk } = form;
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 640 }}>
      <ErrorBox keys={shownErrors} />
      {cvOnlyOffered && <FormControlLabel control={<Switch checked={f.cvOnly} onChange={(e) => set({ cvOnly: e.target.checked })} />} label={t('wizard.cvOnly')} />}
      {info.supervised && testRows !== null && testRows < SMALL_TEST && !(cvOnlyOffered && f.cvOnly) && (
        <Alert severity="warning">{t(cvOnlyOffered ? 'wizard.smallTestCvOnly' : 'wizard.smallTest', { rows: testRows, min: SMALL_TEST })}</Alert>
      )}
      {info.supervised && (
        <TextField
          label={t('wizard.splitRatio')}
          value={f.split}
          disabled={cvOnlyOffered && f.cvOnly}
          onChange={(e) => set({ split: e.target.value })}
          error={!!parsed.split.error}
          helperText={parsed.split.error ? t(parsed.split.error, parsed.split.params) : `${t('wizard.splitHelp')} ${type === 'soft_sensor' ? t('wizard.splitHelpTime') : ''}`}
        />
      )}
      {type === 'soft_sensor' && d.datetime_column && (
        <TextField label={t('wizard.splitTime')} type="datetime-local" value={f.splitTime} onChange={(e) => set({ splitTime: e.target.value })} helperText={t('wizard.splitTimeHelp')} slotProps={{ inputLabel: { shrink: true } }} />
      )}
      {info.supervised && (
        <TextField
          label={t('wizard.cv')}
          value={f.cv}
          onChange={(e) => set({ cv: e.target.value })}
          error={shownErrors.length > 0 && parseFolds(f.cv) === null}
          helperText={parseFolds(f.cv) === null ? t('validation.cv') : t('wizard.cvHelp')}
        />
      )}
      <FormControlLabel control={<Switch checked={f.autoTune} onChange={(e) => set({ autoTune: e.target.checked })} />} label={t('wizard.autoTune')} />
      <TextField
        label={t('wizard.trials')}
        value={f.trials}
        disabled={!f.autoTune}
        onChange={(e) => set({ trials: e.target.value })}
        error={!trialsOk}
        helperText={!trialsOk ? t('validation.range', { lo: 1, hi: 1000 }) : ' '}
      />
      {type === 'regression' && (
        <TextField
          label={t('wizard.significance')}
          value={f.significance}
          onChange={(e) => set({ significance: e.target.value })}
          error={!!parsed.significance.error}
          helperText={parsed.significance.error ? t(parsed.significance.error, parsed.significance.params) : ' '}
        />
      )}
    </Box>
  );
}

export function ModelsStep({ form, algorithms, shownErrors }: StepProps) {
  const { t } = useTranslation(NS);
  const { f, set, chosen } = form;
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 1 }}>
      <ErrorBox keys={shownErrors} />
      {algorithms.map((a) => {
        const on = chosen.includes(a.key);
        const values = f.params[a.key] ?? defaultsOf(a);
        return (
          <Paper key={a.key} variant="outlined" sx={{ p: 1.5, borderColor: on ? 'primary.main' : undefined }}>
            <FormControlLabel
              control={<Checkbox checked={on} onChange={(e) => set({ picked: e.target.checked ? [...chosen, a.key] : chosen.filter((x) => x !== a.key) })} />}
              label={<Typography sx={{ fontWeight: 500 }}>{a.label}</Typography>}
            />
            {on && a.params.length > 0 && (
              <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, mt: 1, ml: 4, alignItems: 'flex-start' }} role="group" aria-label={`${a.label} ${t('wizard.hyperparameters')}`}>
                {a.params.map((p) => (
                  <ParamField key={p.name} id={`${a.key}-${p.name}`} p={p} value={values[p.name] ?? ''} onChange={(v) => set({ params: { ...f.params, [a.key]: { ...values, [p.name]: v } } })} />
                ))}
                <Button size="small" onClick={() => set({ params: { ...f.params, [a.key]: defaultsOf(a) } })}>
                  {t('wizard.reset')}
                </Button>
              </Box>
            )}
          </Paper>
        );
      })}
    </Box>
  );
}

export function PreviewStep({ type, d, form, algorithms, shownErrors }: StepProps) {
  const { t } = useTranslation(NS);
  const { f, info, chosen, cvOnlyOffered } = form;
  return (
    <>
      <InfoGrid
        items={[
          { label: t('wizard.name'), value: f.name },
          { label: t('list.type'), value: t(`types.${type}`) },
          { label: t('list.dataset'), value: d.name },
          ...(info.supervised || f.target ? [{ label: info.supervised ? t('wizard.target') : t('wizard.targetOptional'), value: f.target ?? '' }] : []),
          { label: t('wizard.features'), value: f.features.join(', '), wide: true },
          ...(info.supervised
            ? [{ label: t('wizard.splitRatio'), value: cvOnlyOffered && f.cvOnly ? t('wizard.cvOnly') : f.splitTime || f.split }, { label: t('wizard.cv'), value: f.cv }]
            : []),
          { label: t('wizard.autoTune'), value: f.autoTune ? `${t('wizard.yes')} (${f.trials})` : t('wizard.no') },
          ...(type === 'soft_sensor' ? [{ label: t('wizard.lags'), value: f.lags }, { label: t('wizard.windows'), value: f.windows }] : []),
          ...(type === 'discriminant_analysis' ? [{ label: t('wizard.balance'), value: f.balance ? t('wizard.yes') : t('wizard.no') }] : []),
          { label: t('wizard.varianceThreshold'), value: f.variance },
          { label: t('wizard.modelsChosen'), value: chosen.map((k) => algorithms.find((a) => a.key === k)?.label ?? k).join(', '), wide: true },
        ]}
      />
      {shownErrors.length > 0 && (
        <Alert severity="error" sx={{ mt: 2 }}>
          {shownErrors.map((k) => (
            <div key={k}>{t(k, { lo: 0, hi: 0 })}</div>
          ))}
        </Alert>
      )}
    </>
  );
}
