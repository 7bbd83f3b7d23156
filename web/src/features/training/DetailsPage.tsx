import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import StopIcon from '@mui/icons-material/Stop';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { cancelJob } from '../../api/jobs';
import { usePageTitle } from '../../app/pageTitle';
import PageLoading from '../../components/PageLoading';
import ProjectFrame from '../../components/ProjectFrame';
import { useConfirmedAction } from '../../components/useConfirmedAction';
import { useProjectActions } from '../../components/useProjectActions';
import { showSnackbar } from '../../lib/feedback';
import { tableProjects, trainingKeys, trainProject, useTableProject } from './api';
import { ModelsSection, SettingsSection } from './detailsSections';
import { NS, RunErrorAlert, StateChip, TrainButton } from './labels';

/** A project: its settings, the Train button, progress while it trains, and the model list with metrics. */
export default function DetailsPage() {
  const { t } = useTranslation(NS);
  const { project_id: id = '' } = useParams();
  const qc = useQueryClient();
  const { data: p, isLoading } = useTableProject(id);
  const { dialog, ask } = useConfirmedAction();
  const actions = useProjectActions(tableProjects, id, p);
  usePageTitle(p?.name);
  if (isLoading) return <PageLoading />;
  if (!p) return null;

  const training = p.training_state === 'training';
  const train = async () => {
    qc.setQueryData(trainingKeys.project(p.project_id), await trainProject(p.project_id));
    showSnackbar(t('details.started'));
  };

  return (
    <ProjectFrame
      name={p.name}
      typeLabel={t(`types.${p.project_type}`)}
      state={<StateChip state={p.training_state} />}
      facts={[p.parent_dataset_name]}
      actions={
        <>
          <TrainButton label={training ? t('details.training') : p.training_state === 'ready' ? t('details.train') : t('details.retrain')} training={training} onTrain={train} />
          {training && p.job && (
            <Button
              color="error"
              startIcon={<StopIcon />}
              onClick={() =>
                ask({
                  title: t('details.stopTitle'),
                  text: t('details.stopText'),
                  confirmLabel: t('details.stop'),
                  destructive: true,
                  run: async () => {
                    await cancelJob(p.job!.id);
                    await qc.invalidateQueries({ queryKey: trainingKeys.project(p.project_id) });
                  },
                  done: t('details.stopped'),
                })
              }
            >
              {t('details.stop')}
            </Button>
          )}
        </>
      }
      {...actions}
    >
      {training && p.job && (
        <Paper variant="outlined" sx={{ p: 2, mb: 2 }} role="status" aria-live="polite">
          <Typography variant="body2" sx={{ mb: 1 }}>
            {t('details.progress')}: {Math.round(p.job.progress * 100)} % {p.job.message ? `— ${p.job.message}` : ''}
          </Typography>
          <LinearProgress variant="determinate" value={p.job.progress * 100} aria-label={t('details.progress')} />
        </Paper>
      )}
      {p.training_state === 'failed' && <RunErrorAlert error={p.error} jobState={p.job?.state} />}
      <SettingsSection p={p} />
      <ModelsSection p={p} />
      {dialog}
    </ProjectFrame>
  );
}
