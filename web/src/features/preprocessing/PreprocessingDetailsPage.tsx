import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Link from '@mui/material/Link';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Step from '@mui/material/Step';
import StepLabel from '@mui/material/StepLabel';
import Stepper from '@mui/material/Stepper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import ArrowDownwardIcon from '@mui/icons-material/ArrowDownward';
import ArrowUpwardIcon from '@mui/icons-material/ArrowUpward';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import SaveOutlinedIcon from '@mui/icons-material/SaveOutlined';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import VisibilityOutlinedIcon from '@mui/icons-material/VisibilityOutlined';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { columnTypeLabel } from '../datasets/labels';
import { Link as RouterLink, useParams } from 'react-router';
import { ApiError, reportError } from '../../api/client';
import type { DatasetColumn } from '../../api/types';
import { usePageTitle } from '../../app/pageTitle';
import ConfirmDialog from '../../components/ConfirmDialog';
import InfoGrid from '../../components/InfoGrid';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { showSnackbar } from '../../lib/feedback';
import { formatDateTime, formatInteger, formatNumber } from '../../lib/format';
import { CsvButton, Panel } from '../visualization/sections';
import { downloadCsv } from '../visualization/csv';
import {
  cancelRun,
  keys,
  previewStep,
  registerDataset,
  runCondition,
  saveCondition,
  uploadConditionFile,
  useConditions,
  useLoadedDataset,
  useRun,
  type HistoryEntry,
  type Preview,
  type Step as PStep,
  type StepDraft,
} from './api';
import { columnsAfter, normalizeStep, stepProblem } from './catalogue';
import PreviewPanel from './PreviewPanel';
import StepEditor from './StepEditor';

const cellText = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'number' ? formatNumber(v) : typeof v === 'object' ? JSON.stringify(v) : String(v));

export function useStepSummary() {
  const { t } = useTranslation('preprocessing');
  return (s: PStep) => {
    const parts: string[] = [];
    if (s.columns.length) parts.push(s.columns.join(', '));
    if (s.process_type === 'columns' && s.params.mapping) parts.push(Object.entries(s.params.mapping).map(([a, b]) => `${a} → ${b}`).join(', '));
    for (const [k, v] of Object.entries(s.params)) {
      if (k !== 'mapping') parts.push(`${t(`params.${k}`)}: ${t(`options.${k}.${String(v)}`, { defaultValue: String(v) })}`);
    }
    return parts.join(' · ');
  };
}

function HistoryTable({ history }: { history: HistoryEntry[] }) {
  const { t } = useTranslation('preprocessing');
  return (
    <Table size="small" aria-label={t('history')}>
      <TableHead>
        <TableRow>
          <TableCell>{t('processType')}</TableCell>
          <TableCell>{t('action')}</TableCell>
          <TableCell>{t('changes')}</TableCell>
          <TableCell>{t('modifiedAt')}</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {history.map((h, i) => (
          <TableRow key={i}>
            <TableCell>{t(`types.${h.process_type}`, { defaultValue: h.process_type })}</TableCell>
            <TableCell>{t(`methods.${h.process_type}.${h.action_name}`, { defaultValue: h.action_name })}</TableCell>
            <TableCell sx={{ maxWidth: 520, wordBreak: 'break-word', fontSize: 12 }}>
              {h.changes && typeof h.changes === 'object'
                ? Object.entries(h.changes as Record<string, unknown>)
                    .map(([k, v]) => `${t(`changeKeys.${k}`, { defaultValue: k })}: ${typeof v === 'object' ? JSON.stringify(v) : cellText(v)}`)
                    .join(' · ')
                : cellText(h.changes)}
            </TableCell>
            <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(h.modified_at)}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

function ColumnsTable({ columns }: { columns: DatasetColumn[] }) {
  const { t } = useTranslation('preprocessing');
  return (
    <Table size="small" aria-label={t('columnsTable')}>
      <TableHead>
        <TableRow>
          {['column', 'type', 'count', 'missing', 'mean', 'min', 'max'].map((h) => (
            <TableCell key={h}>{t(`col.${h}`)}</TableCell>
          ))}
        </TableRow>
      </TableHead>
      <TableBody>
        {columns.map((c) => (
          <TableRow key={c.name}>
            <TableCell>{c.name}</TableCell>
            <TableCell>{columnTypeLabel(t, c.type)}</TableCell>
            <TableCell align="right">{formatInteger(c.count ?? null)}</TableCell>
            <TableCell align="right">{c.missing ? <Chip size="small" color="warning" variant="outlined" label={formatInteger(c.missing)} /> : 0}</TableCell>
            <TableCell align="right">{cellText(c.mean)}</TableCell>
            <TableCell align="right">{cellText(c.min)}</TableCell>
            <TableCell align="right">{cellText(c.max)}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

type Confirm = null | { kind: 'save' | 'run'; name: string };

/** /pre-processing/details/{dataset_id}: the wizard of SPEC §2 (dataset, preprocessing, registration). */
export default function PreprocessingDetailsPage() {
  const { t } = useTranslation('preprocessing');
  const { dataset_id: id = '' } = useParams();
  const queryClient = useQueryClient();
  const loaded = useLoadedDataset(id);
  const conditions = useConditions();
  const summary = useStepSummary();
  const [active, setActive] = useState(0);
  const [steps, setSteps] = useState<StepDraft[]>([]);
  const [editing, setEditing] = useState<{ index: number | null } | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [previewing, setPreviewing] = useState<number | null>(null);
  const [previewError, setPreviewError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [confirm, setConfirm] = useState<Confirm>(null);
  const [busy, setBusy] = useState(false);
  const [tempId, setTempId] = useState<string | null>(null);
  const [newName, setNewName] = useState('');
  const [comment, setComment] = useState('');
  const [registered, setRegistered] = useState<{ id: string; name: string; data_type: string } | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const run = useRun(tempId);
  usePageTitle(loaded.data ? `${loaded.data.dataset.name} – ${t('title')}` : null);

  const columnsBefore = useMemo(() => {
    if (!loaded.data || !editing) return [];
    const upto = editing.index ?? steps.length;
    return columnsAfter(loaded.data.columns, steps.slice(0, upto)) as DatasetColumn[];
  }, [loaded.data, steps, editing]);

  if (loaded.isLoading) return <PageLoading />;
  if (!loaded.data) return <Alert severity="error">{t('notFound')}</Alert>;
  const { dataset, columns, rows } = loaded.data;
  const clean = steps.map(normalizeStep);
  const invalid = steps.findIndex((s) => stepProblem(s) !== null);

  const doPreview = async (index: number) => {
    setPreviewing(index);
    setPreviewError(null);
    try {
      setPreview(await previewStep(id, clean.slice(0, index + 1), index));
    } catch (e) {
      setPreview(null);
      if (e instanceof ApiError && (e.status === 422 || e.status === 504)) setPreviewError(e.fieldErrors[0]?.message ?? e.serverMessage ?? e.message);
      else reportError(e);
    } finally {
      setPreviewing(null);
    }
  };

  const save = async (overwrite: boolean) => {
    setBusy(true);
    try {
      await saveCondition({ name: name.trim(), steps: clean, datetime_column: dataset.datetime_column, source_dataset_id: dataset.id, confirm_overwrite: overwrite });
      showSnackbar(t('conditionSaved', { name: name.trim() }));
      setConfirm(null);
      void queryClient.invalidateQueries({ queryKey: keys.conditions });
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) setConfirm({ kind: 'save', name: name.trim() });
      else reportError(e);
    } finally {
      setBusy(false);
    }
  };

  const start = async (overwrite: boolean) => {
    setBusy(true);
    try {
      const r = await runCondition(id, { steps: clean, condition_name: name.trim() || undefined, confirm_overwrite: overwrite });
      setConfirm(null);
      setTempId(r.temp_id);
      setRegistered(null);
      setNewName(`${dataset.name}_${name.trim() || t('preprocessedSuffix')}`);
      setActive(2);
      void queryClient.invalidateQueries({ queryKey: keys.conditions });
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) setConfirm({ kind: 'run', name: name.trim() });
      else reportError(e);
    } finally {
      setBusy(false);
    }
  };

  const register = async () => {
    if (!tempId || !newName.trim()) return;
    setBusy(true);
    try {
      const d = await registerDataset(tempId, { name: newName.trim(), comment });
      setRegistered({ id: d.id, name: d.name, data_type: d.data_type });
      showSnackbar(t('registered', { name: d.name }));
      void queryClient.invalidateQueries({ queryKey: ['datasets'] });
      void queryClient.invalidateQueries({ queryKey: keys.run(tempId) });
    } catch (e) {
      reportError(e);
    } finally {
      setBusy(false);
    }
  };

  const onUpload = async (file: File | undefined) => {
    if (!file) return;
    try {
      const c = await uploadConditionFile(file);
      setSteps(c.steps);
      setName(c.name);
      setPreview(null);
      showSnackbar(t('fileLoaded', { name: c.name, n: c.steps.length }));
    } catch {
      /* the client has shown the server's message (row and reason) */
    } finally {
      if (fileInput.current) fileInput.current.value = '';
    }
  };

  const move = (i: number, d: -1 | 1) =>
    setSteps((s) => {
      const next = [...s];
      [next[i], next[i + d]] = [next[i + d], next[i]];
      return next;
    });

  const r = run.data;
  const runActive = r?.state === 'queued' || r?.state === 'running';

  return (
    <Box>
      <PageHeader title={dataset.name} subtitle={t('subtitle')} />
      <Stepper activeStep={active} sx={{ mb: 3, maxWidth: 720 }}>
        {['dataset', 'preprocessing', 'registration'].map((k, i) => (
          <Step key={k} completed={i < active}>
            <StepLabel>{t(`wizard.${k}`)}</StepLabel>
          </Step>
        ))}
      </Stepper>

      {active === 0 && (
        <>
          <Panel title={t('wizard.dataset')}>
            <InfoGrid
              items={[
                { label: t('info.rows'), value: formatInteger(dataset.row_count) },
                { label: t('info.columns'), value: formatInteger(dataset.column_count) },
                { label: t('info.datetime'), value: dataset.datetime_column ?? '–' },
                { label: t('info.preprocessed'), value: dataset.preprocessed ? t('info.yes') : t('info.no') },
                ...(dataset.parent_dataset_name ? [{ label: t('info.parent'), value: dataset.parent_dataset_name }] : []),
              ]}
            />
          </Panel>
          <Panel title={t('columnsTable')}>
            <Box sx={{ overflowX: 'auto' }}>
              <ColumnsTable columns={columns} />
            </Box>
          </Panel>
          <Panel title={t('firstRows')}>
            <Box sx={{ overflowX: 'auto', maxHeight: 320 }}>
              <Table size="small" stickyHeader aria-label={t('firstRows')}>
                <TableHead>
                  <TableRow>
                    {columns.map((c) => (
                      <TableCell key={c.name} sx={{ whiteSpace: 'nowrap' }}>
                        {c.name}
                      </TableCell>
                    ))}
                  </TableRow>
                </TableHead>
                <TableBody>
                  {rows.slice(0, 10).map((row, i) => (
                    <TableRow key={i}>
                      {row.map((v, j) => (
                        <TableCell key={j} sx={{ whiteSpace: 'nowrap' }}>
                          {cellText(v)}
                        </TableCell>
                      ))}
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </Box>
          </Panel>
          <Button variant="contained" onClick={() => setActive(1)}>
            {t('next')}
          </Button>
        </>
      )}

      {active === 1 && (
        <>
          <Panel
            title={t('steps')}
            actions={
              <>
                <TextField
                  select
                  size="small"
                  label={t('useSaved')}
                  value=""
                  sx={{ minWidth: 220 }}
                  onChange={(e) => {
                    const c = conditions.data?.find((x) => x.id === e.target.value);
                    if (c) {
                      setSteps(c.steps);
                      setName(c.name);
                      setPreview(null);
                    }
                  }}
                >
                  {(conditions.data ?? []).length === 0 && (
                    <MenuItem value="" disabled>
                      {t('noSaved')}
                    </MenuItem>
                  )}
                  {(conditions.data ?? []).map((c) => (
                    <MenuItem key={c.id} value={c.id}>
                      {c.name}
                    </MenuItem>
                  ))}
                </TextField>
                <Button size="small" variant="outlined" startIcon={<UploadFileIcon />} onClick={() => fileInput.current?.click()}>
                  {t('uploadFile')}
                </Button>
                <input ref={fileInput} type="file" accept=".csv,text/csv" hidden data-testid="condition-file-input" onChange={(e) => void onUpload(e.target.files?.[0])} />
                <Button size="small" variant="contained" startIcon={<AddIcon />} onClick={() => setEditing({ index: null })}>
                  {t('addStep')}
                </Button>
              </>
            }
          >
            {steps.length === 0 ? (
              <Typography color="text.secondary" sx={{ py: 2 }}>
                {t('noSteps')}
              </Typography>
            ) : (
              <List dense aria-label={t('steps')}>
                {steps.map((s, i) => {
                  const problem = stepProblem(s);
                  return (
                    <ListItem
                      key={i}
                      divider
                      secondaryAction={
                        <Box sx={{ display: 'flex', gap: 0.5 }}>
                          <Button size="small" startIcon={<VisibilityOutlinedIcon />} onClick={() => void doPreview(i)} disabled={previewing !== null || problem !== null || invalid !== -1 && invalid < i}>
                            {t('preview')}
                          </Button>
                          <Tooltip title={t('edit')}>
                            <IconButton size="small" aria-label={t('editStepN', { n: i + 1 })} onClick={() => setEditing({ index: i })}>
                              <EditOutlinedIcon fontSize="small" />
                            </IconButton>
                          </Tooltip>
                          <IconButton size="small" aria-label={t('moveUp')} disabled={i === 0} onClick={() => move(i, -1)}>
                            <ArrowUpwardIcon fontSize="small" />
                          </IconButton>
                          <IconButton size="small" aria-label={t('moveDown')} disabled={i === steps.length - 1} onClick={() => move(i, 1)}>
                            <ArrowDownwardIcon fontSize="small" />
                          </IconButton>
                          <Tooltip title={t('delete')}>
                            <IconButton size="small" aria-label={t('deleteStepN', { n: i + 1 })} onClick={() => { setSteps((x) => x.filter((_, j) => j !== i)); setPreview(null); }}>
                              <DeleteOutlineIcon fontSize="small" />
                            </IconButton>
                          </Tooltip>
                        </Box>
                      }
                      sx={{ pr: 36 }}
                    >
                      <ListItemText
                        primary={
                          <>
                            <Chip size="small" label={i + 1} sx={{ mr: 1 }} />
                            {t(`types.${s.process_type}`)} — {t(`methods.${s.process_type}.${s.method}`)}
                          </>
                        }
                        secondary={problem ? t(`invalid.${problem}`) : summary(normalizeStep(s)) || t('allColumns')}
                        slotProps={{ secondary: { color: problem ? 'error' : 'text.secondary' } }}
                      />
                    </ListItem>
                  );
                })}
              </List>
            )}
            {previewing !== null && <LinearProgress sx={{ mt: 1 }} aria-label={t('previewing')} />}
          </Panel>
          {previewError && (
            <Alert severity="error" sx={{ mb: 2 }} data-testid="preview-error">
              {previewError}
            </Alert>
          )}
          {preview && <PreviewPanel preview={preview} datasetName={dataset.name} />}
          <Paper variant="outlined" sx={{ p: 2, mb: 2, display: 'flex', gap: 2, alignItems: 'center', flexWrap: 'wrap' }}>
            <TextField size="small" label={t('conditionName')} value={name} onChange={(e) => setName(e.target.value)} sx={{ minWidth: 280 }} helperText={t('conditionNameHelp')} />
            <Button variant="outlined" startIcon={<SaveOutlinedIcon />} disabled={!name.trim() || steps.length === 0 || invalid !== -1 || busy} onClick={() => void save(false)}>
              {t('saveCondition')}
            </Button>
            <Box sx={{ flex: 1 }} />
            <Button onClick={() => setActive(0)}>{t('back')}</Button>
            <Button variant="contained" startIcon={<PlayArrowIcon />} disabled={steps.length === 0 || invalid !== -1 || busy} onClick={() => void start(false)}>
              {t('runCondition')}
            </Button>
          </Paper>
        </>
      )}

      {active === 2 && (
        <>
          <Panel title={t('runTitle')}>
            {!r || runActive ? (
              <Box>
                <Typography variant="body2" sx={{ mb: 1 }}>
                  {r?.message || t('running')}
                </Typography>
                <LinearProgress variant={r ? 'determinate' : 'indeterminate'} value={(r?.progress ?? 0) * 100} aria-label={t('running')} />
                {tempId && (
                  <Button
                    sx={{ mt: 1.5 }}
                    variant="outlined"
                    color="warning"
                    onClick={() => void cancelRun(tempId).then(() => queryClient.invalidateQueries({ queryKey: keys.run(tempId) })).catch(reportError)}
                  >
                    {t('cancelRun')}
                  </Button>
                )}
              </Box>
            ) : r.state === 'succeeded' && r.result ? (
              <Box data-testid="run-result">
                <Alert severity="success" sx={{ mb: 2 }}>
                  {t('runDone', {
                    rows: formatInteger(r.result.row_count),
                    cols: formatInteger(r.result.column_count),
                    rowsBefore: formatInteger(r.result.rows_before),
                    colsBefore: formatInteger(r.result.columns_before),
                  })}
                </Alert>
                <Typography variant="subtitle2">{t('history')}</Typography>
                <HistoryTable history={r.result.history} />
              </Box>
            ) : (
              <Alert severity="error" action={<Button onClick={() => setActive(1)}>{t('back')}</Button>}>
                {t('runFailed')}: {r.error}
              </Alert>
            )}
          </Panel>
          {r?.state === 'succeeded' && r.result && (
            <>
              <Panel title={t('resultRows')} actions={<CsvButton onClick={() => downloadCsv(`${newName || dataset.name}_head.csv`, r.result!.columns, r.result!.head.map((h) => r.result!.columns.map((c) => h[c])))} />}>
                <Box sx={{ overflowX: 'auto', maxHeight: 320 }}>
                  <Table size="small" stickyHeader aria-label={t('resultRows')}>
                    <TableHead>
                      <TableRow>
                        {r.result.columns.map((c) => (
                          <TableCell key={c} sx={{ whiteSpace: 'nowrap' }}>
                            {c}
                          </TableCell>
                        ))}
                      </TableRow>
                    </TableHead>
                    <TableBody>
                      {r.result.head.slice(0, 10).map((h, i) => (
                        <TableRow key={i}>
                          {r.result!.columns.map((c) => (
                            <TableCell key={c} sx={{ whiteSpace: 'nowrap' }}>
                              {cellText(h[c])}
                            </TableCell>
                          ))}
                        </TableRow>
                      ))}
                    </TableBody>
                  </Table>
                </Box>
              </Panel>
              <Panel title={t('wizard.registration')}>
                {registered || r.dataset_id ? (
                  <Alert severity="success" data-testid="registered">
                    {t('registeredAs')}{' '}
                    <Link component={RouterLink} to={`/dataset/details/${encodeURIComponent(registered?.id ?? r.dataset_id!)}/${encodeURIComponent(registered?.data_type ?? dataset.data_type)}`}>
                      {registered?.name ?? t('newDataset')}
                    </Link>
                    {' · '}
                    <Link component={RouterLink} to={`/visualization/details/${encodeURIComponent(registered?.id ?? r.dataset_id!)}`}>
                      {t('visualizeIt')}
                    </Link>
                  </Alert>
                ) : (
                  <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', alignItems: 'flex-start' }}>
                    <TextField size="small" required label={t('newDatasetName')} value={newName} onChange={(e) => setNewName(e.target.value)} sx={{ minWidth: 320 }} />
                    <TextField size="small" label={t('comment')} value={comment} onChange={(e) => setComment(e.target.value)} sx={{ minWidth: 320 }} />
                    <Button variant="contained" disabled={!newName.trim() || busy} onClick={() => void register()}>
                      {t('register')}
                    </Button>
                  </Box>
                )}
              </Panel>
            </>
          )}
        </>
      )}

      <StepEditor
        open={!!editing}
        initial={editing && editing.index !== null ? steps[editing.index] : null}
        columns={columnsBefore}
        onClose={() => setEditing(null)}
        onSave={(s) => {
          setSteps((x) => (editing?.index !== null && editing?.index !== undefined ? x.map((y, j) => (j === editing.index ? s : y)) : [...x, s]));
          setEditing(null);
          setPreview(null);
        }}
      />
      <ConfirmDialog
        open={!!confirm}
        title={t('duplicateTitle')}
        text={t('duplicateText', { name: confirm?.name ?? '' })}
        confirmLabel={t('overwrite')}
        busy={busy}
        onClose={() => setConfirm(null)}
        onConfirm={() => void (confirm?.kind === 'save' ? save(true) : start(true))}
      />
    </Box>
  );
}
