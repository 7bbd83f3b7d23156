import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
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
import { useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, reportError } from '../../api/client';
import type { DatasetColumn } from '../../api/types';
import { showSnackbar } from '../../lib/feedback';
import { Panel } from '../visualization/sections';
import { previewStep, uploadConditionFile, useConditions, type Condition, type Preview, type StepDraft } from './api';
import { columnsAfter, normalizeStep, stepProblem } from './catalogue';
import type { LoadedDataset } from './DatasetStep';
import { useStepSummary } from './stepSummary';
import PreviewPanel from './PreviewPanel';
import StepEditor from './StepEditor';

/** The condition being written: its steps, its name and the preview of one step (kept while the wizard moves). */
export interface Draft {
  steps: StepDraft[];
  name: string;
  preview: Preview | null;
  previewError: string | null;
}

interface Props {
  loaded: LoadedDataset;
  draft: Draft;
  onDraft: (change: (d: Draft) => Draft) => void;
  busy: boolean;
  onSave: () => void;
  onRun: () => void;
  onBack: () => void;
}

/** Step 2 of the pre-processing wizard: the steps of the condition (added, loaded from a saved condition or a file,
 * previewed one by one), then Save condition or Run. */
export default function ConditionStep({ loaded, draft, onDraft, busy, onSave, onRun, onBack }: Props) {
  const { t } = useTranslation('preprocessing');
  const [editing, setEditing] = useState<{ index: number | null } | null>(null);
  const [previewing, setPreviewing] = useState<number | null>(null);
  const { steps, name } = draft;
  const invalid = steps.findIndex((s) => stepProblem(s) !== null);
  const setSteps = (change: (s: StepDraft[]) => StepDraft[]) => onDraft((d) => ({ ...d, steps: change(d.steps), preview: null }));
  const load = (c: Pick<Condition, 'name' | 'steps'>) => onDraft((d) => ({ ...d, steps: c.steps, name: c.name, preview: null }));

  const columnsBefore = useMemo(() => {
    if (!editing) return [];
    return columnsAfter(loaded.columns, steps.slice(0, editing.index ?? steps.length)) as DatasetColumn[];
  }, [loaded.columns, steps, editing]);

  const doPreview = async (index: number) => {
    setPreviewing(index);
    onDraft((d) => ({ ...d, previewError: null }));
    try {
      const preview = await previewStep(loaded.dataset.id, steps.map(normalizeStep).slice(0, index + 1), index);
      onDraft((d) => ({ ...d, preview }));
    } catch (e) {
      onDraft((d) => ({ ...d, preview: null }));
      if (e instanceof ApiError && (e.status === 422 || e.status === 504)) {
        const message = e.fieldErrors[0]?.message ?? e.serverMessage ?? e.message;
        onDraft((d) => ({ ...d, previewError: message }));
      } else reportError(e);
    } finally {
      setPreviewing(null);
    }
  };

  const move = (i: number, d: -1 | 1) =>
    onDraft((x) => {
      const next = [...x.steps];
      [next[i], next[i + d]] = [next[i + d], next[i]];
      return { ...x, steps: next };
    });

  return (
    <>
      <Panel title={t('steps')} actions={<StepsActions onLoad={load} onAdd={() => setEditing({ index: null })} />}>
        {steps.length === 0 ? (
          <Typography color="text.secondary" sx={{ py: 2 }}>
            {t('noSteps')}
          </Typography>
        ) : (
          <StepList
            steps={steps}
            canPreview={(i) => previewing === null && stepProblem(steps[i]) === null && !(invalid !== -1 && invalid < i)}
            onPreview={(i) => void doPreview(i)}
            onEdit={(i) => setEditing({ index: i })}
            onMove={move}
            onDelete={(i) => setSteps((x) => x.filter((_, j) => j !== i))}
          />
        )}
        {previewing !== null && <LinearProgress sx={{ mt: 1 }} aria-label={t('previewing')} />}
      </Panel>
      {draft.previewError && (
        <Alert severity="error" sx={{ mb: 2 }} data-testid="preview-error">
          {draft.previewError}
        </Alert>
      )}
      {draft.preview && <PreviewPanel preview={draft.preview} datasetName={loaded.dataset.name} />}
      <Paper variant="outlined" sx={{ p: 2, mb: 2, display: 'flex', gap: 2, alignItems: 'center', flexWrap: 'wrap' }}>
        <TextField size="small" label={t('conditionName')} value={name} onChange={(e) => onDraft((d) => ({ ...d, name: e.target.value }))} sx={{ minWidth: 280 }} helperText={t('conditionNameHelp')} />
        <Button variant="outlined" startIcon={<SaveOutlinedIcon />} disabled={!name.trim() || steps.length === 0 || invalid !== -1 || busy} onClick={onSave}>
          {t('saveCondition')}
        </Button>
        <Box sx={{ flex: 1 }} />
        <Button onClick={onBack}>{t('back')}</Button>
        <Button variant="contained" startIcon={<PlayArrowIcon />} disabled={steps.length === 0 || invalid !== -1 || busy} onClick={onRun}>
          {t('runCondition')}
        </Button>
      </Paper>
      <StepEditor
        open={!!editing}
        initial={editing && editing.index !== null ? steps[editing.index] : null}
        columns={columnsBefore}
        onClose={() => setEditing(null)}
        onSave={(s) => {
          setSteps((x) => (editing?.index !== null && editing?.index !== undefined ? x.map((y, j) => (j === editing.index ? s : y)) : [...x, s]));
          setEditing(null);
        }}
      />
    </>
  );
}

/** The steps panel's actions: use a saved condition, load one from a file, add a step. */
function StepsActions({ onLoad, onAdd }: { onLoad: (c: Pick<Condition, 'name' | 'steps'>) => void; onAdd: () => void }) {
  const { t } = useTranslation('preprocessing');
  const conditions = useConditions();
  const fileInput = useRef<HTMLInputElement>(null);
  const onUpload = async (file: File | undefined) => {
    if (!file) return;
    try {
      const c = await uploadConditionFile(file);
      onLoad(c);
      showSnackbar(t('fileLoaded', { name: c.name, n: c.steps.length }));
    } catch {
      /* the client has shown the server's message (row and reason) */
    } finally {
      if (fileInput.current) fileInput.current.value = '';
    }
  };
  return (
    <>
      <TextField
        select
        size="small"
        label={t('useSaved')}
        value=""
        sx={{ minWidth: 220 }}
        onChange={(e) => {
          const c = conditions.data?.find((x) => x.id === e.target.value);
          if (c) onLoad(c);
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
      <Button size="small" variant="contained" startIcon={<AddIcon />} onClick={onAdd}>
        {t('addStep')}
      </Button>
    </>
  );
}

interface StepListProps {
  steps: StepDraft[];
  canPreview: (i: number) => boolean;
  onPreview: (i: number) => void;
  onEdit: (i: number) => void;
  onMove: (i: number, d: -1 | 1) => void;
  onDelete: (i: number) => void;
}

/** The condition's steps in order, each with its summary (or what is wrong) and Preview, edit, move and delete. */
function StepList({ steps, canPreview, onPreview, onEdit, onMove, onDelete }: StepListProps) {
  const { t } = useTranslation('preprocessing');
  const summary = useStepSummary();
  return (
    <List dense aria-label={t('steps')}>
      {steps.map((s, i) => {
        const problem = stepProblem(s);
        return (
          <ListItem
            key={i}
            divider
            secondaryAction={
              <Box sx={{ display: 'flex', gap: 0.5 }}>
                <Button size="small" startIcon={<VisibilityOutlinedIcon />} onClick={() => onPreview(i)} disabled={!canPreview(i)}>
                  {t('preview')}
                </Button>
                <Tooltip title={t('edit')}>
                  <IconButton size="small" aria-label={t('editStepN', { n: i + 1 })} onClick={() => onEdit(i)}>
                    <EditOutlinedIcon fontSize="small" />
                  </IconButton>
                </Tooltip>
                <IconButton size="small" aria-label={t('moveUp')} disabled={i === 0} onClick={() => onMove(i, -1)}>
                  <ArrowUpwardIcon fontSize="small" />
                </IconButton>
                <IconButton size="small" aria-label={t('moveDown')} disabled={i === steps.length - 1} onClick={() => onMove(i, 1)}>
                  <ArrowDownwardIcon fontSize="small" />
                </IconButton>
                <Tooltip title={t('delete')}>
                  <IconButton size="small" aria-label={t('deleteStepN', { n: i + 1 })} onClick={() => onDelete(i)}>
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
  );
}
