import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Step from '@mui/material/Step';
import StepLabel from '@mui/material/StepLabel';
import Stepper from '@mui/material/Stepper';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { ApiError, reportError } from '../../api/client';
import { usePageTitle } from '../../app/pageTitle';
import ConfirmDialog from '../../components/ConfirmDialog';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { showSnackbar } from '../../lib/feedback';
import { keys, runCondition, saveCondition, useLoadedDataset } from './api';
import { normalizeStep } from './catalogue';
import ConditionStep, { type Draft } from './ConditionStep';
import DatasetStep from './DatasetStep';
import RunStep from './RunStep';

type Confirm = null | { kind: 'save' | 'run'; name: string };
const EMPTY: Draft = { steps: [], name: '', preview: null, previewError: null };

/** /pre-processing/details/{dataset_id}: the wizard of SPEC §2 (dataset, preprocessing, registration), one step
 * component each; the condition being written is kept here so that Back finds it as it was. */
export default function PreprocessingDetailsPage() {
  const { t } = useTranslation('preprocessing');
  const { dataset_id: id = '' } = useParams();
  const queryClient = useQueryClient();
  const loaded = useLoadedDataset(id);
  const [active, setActive] = useState(0);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [confirm, setConfirm] = useState<Confirm>(null);
  const [busy, setBusy] = useState(false);
  const [run, setRun] = useState<{ tempId: string; newName: string } | null>(null);
  usePageTitle(loaded.data ? `${loaded.data.dataset.name} – ${t('title')}` : null);

  if (loaded.isLoading) return <PageLoading />;
  if (!loaded.data) return <Alert severity="error">{t('notFound')}</Alert>;
  const { dataset } = loaded.data;
  const name = draft.name.trim();
  const clean = draft.steps.map(normalizeStep);

  /** Saves the condition, or runs it; a name already taken asks first (409), then sends again with the overwrite. */
  const send = async (kind: 'save' | 'run', overwrite: boolean) => {
    setBusy(true);
    try {
      if (kind === 'save') {
        await saveCondition({ name, steps: clean, datetime_column: dataset.datetime_column, source_dataset_id: dataset.id, confirm_overwrite: overwrite });
        showSnackbar(t('conditionSaved', { name }));
      } else {
        const r = await runCondition(id, { steps: clean, condition_name: name || undefined, confirm_overwrite: overwrite });
        setRun({ tempId: r.temp_id, newName: `${dataset.name}_${name || t('preprocessedSuffix')}` });
        setActive(2);
      }
      setConfirm(null);
      void queryClient.invalidateQueries({ queryKey: keys.conditions });
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) setConfirm({ kind, name });
      else reportError(e);
    } finally {
      setBusy(false);
    }
  };

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
      {active === 0 && <DatasetStep loaded={loaded.data} onNext={() => setActive(1)} />}
      {active === 1 && (
        <ConditionStep
          loaded={loaded.data}
          draft={draft}
          onDraft={setDraft}
          busy={busy}
          onSave={() => void send('save', false)}
          onRun={() => void send('run', false)}
          onBack={() => setActive(0)}
        />
      )}
      {active === 2 && run && <RunStep key={run.tempId} dataset={dataset} tempId={run.tempId} initialName={run.newName} onBack={() => setActive(1)} />}
      <ConfirmDialog
        open={!!confirm}
        title={t('duplicateTitle')}
        text={t('duplicateText', { name: confirm?.name ?? '' })}
        confirmLabel={t('overwrite')}
        busy={busy}
        onClose={() => setConfirm(null)}
        onConfirm={() => confirm && void send(confirm.kind, true)}
      />
    </Box>
  );
}
