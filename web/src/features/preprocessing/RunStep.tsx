import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Link from '@mui/material/Link';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { reportError } from '../../api/client';
import { showSnackbar } from '../../lib/feedback';
import { formatInteger } from '../../lib/format';
import { downloadCsv } from '../visualization/csv';
import { CsvButton, Panel } from '../visualization/sections';
import { cancelRun, keys, registerDataset, useRun, type RunResult } from './api';
import type { LoadedDataset } from './DatasetStep';
import { HeadRows, HistoryTable } from './tables';

interface Props {
  dataset: LoadedDataset['dataset'];
  tempId: string;
  /** The new dataset's name the form starts with. */
  initialName: string;
  onBack: () => void;
}

/** Step 3 of the pre-processing wizard: the run's progress, then its result (history, first rows) and the form that
 * registers it as a new dataset. */
export default function RunStep({ dataset, tempId, initialName, onBack }: Props) {
  const { t } = useTranslation('preprocessing');
  const queryClient = useQueryClient();
  const run = useRun(tempId);
  const [newName, setNewName] = useState(initialName);
  const r = run.data;
  const runActive = r?.state === 'queued' || r?.state === 'running';
  const result = r?.state === 'succeeded' ? r.result : undefined;
  return (
    <>
      <Panel title={t('runTitle')}>
        {!r || runActive ? (
          <Box>
            <Typography variant="body2" sx={{ mb: 1 }}>
              {r?.message || t('running')}
            </Typography>
            <LinearProgress variant={r ? 'determinate' : 'indeterminate'} value={(r?.progress ?? 0) * 100} aria-label={t('running')} />
            <Button
              sx={{ mt: 1.5 }}
              variant="outlined"
              color="warning"
              onClick={() => void cancelRun(tempId).then(() => queryClient.invalidateQueries({ queryKey: keys.run(tempId) })).catch(reportError)}
            >
              {t('cancelRun')}
            </Button>
          </Box>
        ) : result ? (
          <Box data-testid="run-result">
            <Alert severity="success" sx={{ mb: 2 }}>
              {t('runDone', {
                rows: formatInteger(result.row_count),
                cols: formatInteger(result.column_count),
                rowsBefore: formatInteger(result.rows_before),
                colsBefore: formatInteger(result.columns_before),
              })}
            </Alert>
            <Typography variant="subtitle2">{t('history')}</Typography>
            <HistoryTable history={result.history} />
          </Box>
        ) : (
          <Alert severity="error" action={<Button onClick={onBack}>{t('back')}</Button>}>
            {t('runFailed')}: {r.error}
          </Alert>
        )}
      </Panel>
      {r && result && (
        <>
          <Panel
            title={t('resultRows')}
            actions={<CsvButton onClick={() => downloadCsv(`${newName || dataset.name}_head.csv`, result.columns, result.head.map((h) => result.columns.map((c) => h[c])))} />}
          >
            <HeadRows label={t('resultRows')} columns={result.columns} rows={result.head.map((h) => result.columns.map((c) => h[c]))} />
          </Panel>
          <Registration run={r} dataset={dataset} newName={newName} onNewName={setNewName} />
        </>
      )}
    </>
  );
}

interface RegistrationProps {
  run: RunResult;
  dataset: LoadedDataset['dataset'];
  newName: string;
  onNewName: (name: string) => void;
}

/** Registers the run's result as a new dataset (name and comment), then links to it and to its visualisation. */
function Registration({ run, dataset, newName, onNewName }: RegistrationProps) {
  const { t } = useTranslation('preprocessing');
  const queryClient = useQueryClient();
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  const [registered, setRegistered] = useState<{ id: string; name: string; data_type: string } | null>(null);
  const register = async () => {
    if (!newName.trim()) return;
    setBusy(true);
    try {
      const d = await registerDataset(run.temp_id, { name: newName.trim(), comment });
      setRegistered({ id: d.id, name: d.name, data_type: d.data_type });
      showSnackbar(t('registered', { name: d.name }));
      void queryClient.invalidateQueries({ queryKey: ['datasets'] });
      void queryClient.invalidateQueries({ queryKey: keys.run(run.temp_id) });
    } catch (e) {
      reportError(e);
    } finally {
      setBusy(false);
    }
  };
  const id = registered?.id ?? run.dataset_id;
  return (
    <Panel title={t('wizard.registration')}>
      {id ? (
        <Alert severity="success" data-testid="registered">
          {t('registeredAs')}{' '}
          <Link component={RouterLink} to={`/dataset/details/${encodeURIComponent(id)}/${encodeURIComponent(registered?.data_type ?? dataset.data_type)}`}>
            {registered?.name ?? t('newDataset')}
          </Link>
          {' · '}
          <Link component={RouterLink} to={`/visualization/details/${encodeURIComponent(id)}`}>
            {t('visualizeIt')}
          </Link>
        </Alert>
      ) : (
        <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', alignItems: 'flex-start' }}>
          <TextField size="small" required label={t('newDatasetName')} value={newName} onChange={(e) => onNewName(e.target.value)} sx={{ minWidth: 320 }} />
          <TextField size="small" label={t('comment')} value={comment} onChange={(e) => setComment(e.target.value)} sx={{ minWidth: 320 }} />
          <Button variant="contained" disabled={!newName.trim() || busy} onClick={() => void register()}>
            {t('register')}
          </Button>
        </Box>
      )}
    </Panel>
  );
}
