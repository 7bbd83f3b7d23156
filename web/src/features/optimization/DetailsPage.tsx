import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import ReplayIcon from '@mui/icons-material/Replay';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import InfoGrid from '../../components/InfoGrid';
import PageLoading from '../../components/PageLoading';
import ProjectFrame from '../../components/ProjectFrame';
import { useProjectActions } from '../../components/useProjectActions';
import { showSnackbar } from '../../lib/feedback';
import { formatDateTime, formatInteger, formatNumber } from '../../lib/format';
import { evaluateProject, optimizationProjects, optKeys, resultPath, useProject, visualizationPath } from './api';
import { FeaturesTableHead, NS, StateChip } from './labels';

/** /optimization/regress/details/{project_id}: the settings and each algorithm's run, followed while it runs. */
export default function DetailsPage() {
  const { t } = useTranslation(NS);
  const { project_id } = useParams();
  const queryClient = useQueryClient();
  const { data: p } = useProject(project_id);
  const actions = useProjectActions(optimizationProjects, project_id ?? '', p);
  usePageTitle(p?.name ?? t('title'));
  if (!p) return <PageLoading />;

  async function rerun() {
    await evaluateProject(p!.id);
    showSnackbar(t('register.started'));
    await queryClient.invalidateQueries({ queryKey: optKeys.all });
  }

  const featureText = (f: (typeof p.features)[number]) =>
    f.kind === 'range' ? `${formatNumber(f.lower ?? null)} – ${formatNumber(f.upper ?? null)}` : f.kind === 'discrete' ? (f.values ?? []).join(', ') : String(f.value ?? '');
  return (
    <ProjectFrame
      name={p.name}
      typeLabel={t('title')}
      state={<StateChip state={p.state} />}
      facts={[p.dataset_name, t('details.runCount', { count: p.algorithms.length })]}
      actions={
        <Button variant="contained" startIcon={<ReplayIcon />} onClick={() => void rerun()} disabled={p.state === 'running'}>
          {t('details.rerun')}
        </Button>
      }
      {...actions}
    >
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
        <InfoGrid
          items={[
            ...(p.comment ? [{ label: t('info.comment'), value: p.comment, wide: true }] : []),
            { label: t('preview.models'), value: p.models.map((m) => `${m.project_name} / ${m.model_key} → ${m.target}`).join(', '), wide: true },
            { label: t('preview.targets'), value: p.targets.map((x) => `${x.name}: ${t(`goals.${x.goal}`)}${x.goal === 'target' ? ` ${x.value}` : x.goal === 'range' ? ` ${x.lower}–${x.upper}` : ''} (×${x.weight})`).join('; '), wide: true },
            { label: t('constraints.title'), value: p.constraints.length ? p.constraints.map((c) => `${c.name}: ${c.type === 'sum' ? (c.features ?? []).join(' + ') : Object.entries(c.coefficients ?? {}).map(([k, v]) => `${v}·${k}`).join(' + ')} ${c.operator} ${c.value}`).join('; ') : t('preview.none'), wide: true },
            { label: t('parameters.trials'), value: formatInteger(p.n_trials) },
            { label: t('parameters.seed'), value: p.seed },
            { label: t('parameters.forbid'), value: p.forbid_extrapolation ? t('details.yes') : t('details.no') },
            { label: t('list.created'), value: formatDateTime(p.created_at) },
          ]}
        />
      </Paper>
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
        <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1 }}>{t('details.runs')}</Typography>
        <Table size="small" aria-label={t('details.runs')}>
          <TableHead>
            <TableRow>
              <TableCell>{t('algorithm.title')}</TableCell>
              <TableCell>{t('list.state')}</TableCell>
              <TableCell>{t('details.progress')}</TableCell>
              <TableCell>{t('list.best')}</TableCell>
              <TableCell>{t('details.evaluations')}</TableCell>
              <TableCell />
            </TableRow>
          </TableHead>
          <TableBody>
            {p.runs.map((r) => (
              <TableRow key={r.id}>
                <TableCell>{t(`algorithms.${r.algorithm}`)}</TableCell>
                <TableCell><StateChip state={r.state} /></TableCell>
                <TableCell sx={{ minWidth: 180 }}>
                  {r.state === 'running' || r.state === 'queued' ? (
                    <Box>
                      <LinearProgress variant="determinate" value={Math.round(r.progress * 100)} aria-label={t('details.progress')} />
                      <Typography variant="caption" color="text.secondary">{r.message}</Typography>
                    </Box>
                  ) : r.state === 'failed' ? (
                    <Alert severity="error" sx={{ py: 0 }}>{r.error}</Alert>
                  ) : (
                    t('details.finishedIn', { seconds: formatNumber(r.seconds) })
                  )}
                </TableCell>
                <TableCell>{r.best ? Object.entries(r.best.predictions).map(([k, v]) => `${k} ${formatNumber(v)}`).join(', ') : ''}</TableCell>
                <TableCell>{r.evaluations !== null ? formatInteger(r.evaluations) : ''}</TableCell>
                <TableCell>
                  {r.state === 'done' && (
                    <Box sx={{ display: 'flex', gap: 1 }}>
                      <Button size="small" component={RouterLink} to={resultPath(p.id, r.algorithm)}>{t('details.result')}</Button>
                      <Button size="small" component={RouterLink} to={visualizationPath(p.id, r.algorithm)}>{t('details.visualization')}</Button>
                    </Box>
                  )}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </Paper>
      <Paper variant="outlined" sx={{ p: 2 }}>
        <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1 }}>{t('features.title')}</Typography>
        <Table size="small" aria-label={t('features.title')}>
          <FeaturesTableHead />
          <TableBody>
            {p.features.map((f) => (
              <TableRow key={f.name}>
                <TableCell>{f.name}</TableCell>
                <TableCell>{t(`kinds.${f.kind}`)}</TableCell>
                <TableCell>{featureText(f)}</TableCell>
                <TableCell>{f.unit}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </Paper>
    </ProjectFrame>
  );
}
