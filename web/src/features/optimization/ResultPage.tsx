import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import DownloadIcon from '@mui/icons-material/Download';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import InfoGrid from '../../components/InfoGrid';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { formatInteger, formatNumber } from '../../lib/format';
import { type BestCondition, type ConditionPrediction, detailsPath, downloadConditions, predictConditions, type Project, type Result, type Run, useProject, useResult, visualizationPath } from './api';
import { ConvergenceChart } from './charts';
import { NS } from './labels';

/** The run of one algorithm of a project, loaded once it is done; shared by the result and visualization pages. */
export function useRun() {
  const { project_id, algorithm } = useParams();
  const project = useProject(project_id);
  const run = project.data?.runs.find((r) => r.algorithm === algorithm);
  const result = useResult(project_id, algorithm, run?.state === 'done' ? (run.finished_at ?? 'done') : null);
  return { project: project.data, run, result: result.data?.result, algorithm: algorithm ?? '' };
}

export function RunHeader({ project, run, algorithm, page }: { project: Project; run?: Run; algorithm: string; page: 'result' | 'visualization' }) {
  const { t } = useTranslation(NS);
  return (
    <PageHeader
      title={`${project.name} · ${t(`algorithms.${algorithm}`)}`}
      subtitle={t(page === 'result' ? 'result.subtitle' : 'visual.subtitle')}
      actions={
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
          <Button component={RouterLink} to={detailsPath(project.id)}>{t('result.toProject')}</Button>
          {page === 'result' ? (
            <Button variant="outlined" component={RouterLink} to={visualizationPath(project.id, algorithm)}>{t('details.visualization')}</Button>
          ) : (
            <Button variant="outlined" component={RouterLink} to={`/optimization/regress/result/${encodeURIComponent(project.id)}/${encodeURIComponent(algorithm)}`}>{t('details.result')}</Button>
          )}
          {run?.state === 'done' && page === 'result' && (
            <Button variant="contained" startIcon={<DownloadIcon />} onClick={() => void downloadConditions(project.dataset_id, run.id)}>{t('result.download')}</Button>
          )}
        </Box>
      }
    />
  );
}

export function RunPending({ run }: { run?: Run }) {
  const { t } = useTranslation(NS);
  if (!run) return <Alert severity="info">{t('result.notRun')}</Alert>;
  if (run.state === 'failed') return <Alert severity="error">{run.error}</Alert>;
  return <Alert severity="info">{t('result.running', { percent: Math.round(run.progress * 100) })}</Alert>;
}

/** What the run did: the algorithm's trials and, after them, the refinement's stages with their evaluations. */
function searchText(result: Result, t: (key: string, params?: Record<string, unknown>) => string): string {
  const trials = formatInteger(result.search_evaluations ?? result.n_trials);
  const r = result.refinement;
  if (!r) return t('result.searchOnly', { trials });
  return t('result.searchText', { trials, screen: formatInteger(r.screen_evaluations), local: formatInteger(r.local_evaluations), polish: formatInteger(r.polish_evaluations) });
}

const value = (v: number | string) => (typeof v === 'number' ? formatNumber(v) : v);

function BestTable({ result, project, onPredict }: { result: Result; project: Project; onPredict: (b: BestCondition) => void }) {
  const { t } = useTranslation(NS);
  const names = result.targets.map((x) => x.name);
  const units = Object.fromEntries(project.features.map((f) => [f.name, f.unit]));
  return (
    <Box sx={{ overflowX: 'auto' }}>
      <Table size="small" aria-label={t('result.best')}>
        <TableHead>
          <TableRow>
            <TableCell>{t('result.rank')}</TableCell>
            <TableCell />
            {names.map((n) => <TableCell key={n}>{t('result.predicted', { name: n })}</TableCell>)}
            {result.features.map((f) => <TableCell key={f.name}>{f.name}{units[f.name] ? ` (${units[f.name]})` : ''}</TableCell>)}
            {result.constraints.map((c) => <TableCell key={c.name}>{c.name}</TableCell>)}
            <TableCell>{t('result.warnings')}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {result.best.map((b) => (
            <TableRow key={b.rank}>
              <TableCell>{b.rank}</TableCell>
              <TableCell><Button size="small" onClick={() => onPredict(b)}>{t('result.predict')}</Button></TableCell>
              {names.map((n) => (
                <TableCell key={n} sx={{ fontWeight: 600 }}>
                  {formatNumber(b.predictions[n])}
                  {b.uncertainty[n] !== null && b.uncertainty[n] !== undefined ? ` ± ${formatNumber(b.uncertainty[n])}` : ''}
                </TableCell>
              ))}
              {result.features.map((f) => <TableCell key={f.name}>{value(b.features[f.name])}</TableCell>)}
              {result.constraints.map((c) => <TableCell key={c.name} sx={{ whiteSpace: 'nowrap' }}>{formatNumber(b.constraints[c.name])} {c.operator} {formatNumber(c.value)}</TableCell>)}
              <TableCell>{b.extrapolation.length ? <Chip size="small" color="warning" label={t('result.extrapolation', { features: b.extrapolation.join(', ') })} /> : ''}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Box>
  );
}

/** /optimization/regress/result/{project_id}/{algorithm}: the best conditions ranked, convergence, CSV, prediction. */
export default function ResultPage() {
  const { t } = useTranslation(NS);
  const { project, run, result, algorithm } = useRun();
  const [checked, setChecked] = useState<ConditionPrediction | null>(null);
  const [checking, setChecking] = useState(false);
  usePageTitle(project ? `${project.name} · ${t('details.result')}` : t('title'));
  if (!project) return <PageLoading />;

  async function predict(b: BestCondition) {
    setChecking(true);
    setChecked(null);
    try {
      setChecked((await predictConditions(project!.id, [b.features]))[0]);
    } finally {
      setChecking(false);
    }
  }

  return (
    <Box>
      <RunHeader project={project} run={run} algorithm={algorithm} page="result" />
      {!result ? (
        <RunPending run={run} />
      ) : (
        <>
          <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
            <InfoGrid
              items={[
                { label: t('details.evaluations'), value: formatInteger(result.evaluations) },
                // the rate is over the search alone (not loading the models): both times are said, so the figures agree
                { label: t('result.seconds'), value: t('result.secondsSplit', { total: formatNumber(result.seconds), search: formatNumber(result.search_seconds) }) },
                { label: t('result.rate'), value: result.evaluations_per_second ? formatInteger(Math.round(result.evaluations_per_second)) : '' },
                { label: t('result.objective'), value: t(`result.objectives.${result.objective}`) },
                { label: t('result.violation'), value: formatNumber(result.max_violation) },
                { label: t('result.extrapolated'), value: `${formatNumber(result.extrapolated_share * 100)} %` },
                { label: t('result.search'), value: searchText(result, t), wide: true },
              ]}
            />
            {result.implied_equalities?.length ? (
              <Alert severity="info" sx={{ mt: 1 }}>{t('result.implied', { list: result.implied_equalities.join(', ') })}</Alert>
            ) : null}
          </Paper>
          <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
            <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1 }}>{t('result.best')}</Typography>
            <BestTable result={result} project={project} onPredict={(b) => void predict(b)} />
            {checking && <Alert severity="info" sx={{ mt: 1 }}>{t('result.predicting')}</Alert>}
            {checked && (
              <Alert severity={checked.feasible ? 'success' : 'warning'} sx={{ mt: 1 }} aria-label={t('result.predictionResult')}>
                {t('result.predictionResult')}: {Object.entries(checked.predictions).map(([k, v]) => `${k} = ${formatNumber(v)}${checked.uncertainty[k] !== null ? ` ± ${formatNumber(checked.uncertainty[k])}` : ''}`).join(', ')}
                {checked.extrapolation.length ? ` · ${t('result.extrapolation', { features: checked.extrapolation.join(', ') })}` : ''}
              </Alert>
            )}
          </Paper>
          <Paper variant="outlined" sx={{ p: 2 }}>
            <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1 }}>{t('result.convergence')}</Typography>
            <ConvergenceChart
              ariaLabel={t('result.convergence')}
              points={result.convergence}
              labels={{ best: t('result.bestSoFar'), value: t('result.each'), x: t('details.evaluations') }}
            />
            <Typography variant="caption" color="text.secondary">{t(`result.objectiveHelp.${result.objective}`)}</Typography>
          </Paper>
        </>
      )}
    </Box>
  );
}
