import Box from '@mui/material/Box';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePageTitle } from '../../app/pageTitle';
import PageLoading from '../../components/PageLoading';
import { formatNumber } from '../../lib/format';
import type { Candidate, Result } from './api';
import { ParallelCoordinates, ParetoChart, ProfileChart } from './charts';
import { NS } from './labels';
import { RunHeader, RunPending, useRun } from './ResultPage';

type Axis = { kind: 'target' | 'feature'; name: string };
const key = (a: Axis) => `${a.kind}:${a.name}`;
const parse = (s: string): Axis => ({ kind: s.startsWith('target:') ? 'target' : 'feature', name: s.replace(/^(target|feature):/, '') });

/** Larger is better for maximised targets; for a feature (an amount, a cost) smaller is taken as better. */
function direction(result: Result, a: Axis, featureDir: number): number {
  if (a.kind === 'feature') return featureDir;
  const tg = result.targets.find((x) => x.name === a.name);
  return tg?.goal === 'minimize' ? -1 : 1;
}

function Pareto({ result }: { result: Result }) {
  const { t } = useTranslation(NS);
  const numericFeatures = result.features.filter((f) => f.kind === 'range' || f.kind === 'discrete');
  const axes: Axis[] = [...result.targets.map((x) => ({ kind: 'target' as const, name: x.name })), ...numericFeatures.map((f) => ({ kind: 'feature' as const, name: f.name }))];
  const [x, setX] = useState(key(axes[1] ?? axes[0]));
  const [y, setY] = useState(key(axes[0]));
  const [featureDir, setFeatureDir] = useState(-1);
  const ax = parse(x);
  const ay = parse(y);
  // a prediction the engine could not make is null: NaN keeps it off the chart (Number(null) would draw it at 0)
  const get = (a: Axis) => (c: Candidate) => Number((a.kind === 'target' ? c.predictions[a.name] : c.features[a.name]) ?? NaN);
  const goalText = (a: Axis) => (a.kind === 'target' ? t(`goals.${result.targets.find((z) => z.name === a.name)?.goal ?? 'maximize'}`) : t(featureDir < 0 ? 'goals.minimize' : 'goals.maximize'));
  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1 }}>{t('visual.pareto')}</Typography>
      <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', mb: 1 }}>
        {[['visual.xAxis', x, setX], ['visual.yAxis', y, setY]].map(([label, v, set]) => (
          <TextField key={label as string} select size="small" label={t(label as string)} value={v as string} onChange={(e) => (set as (s: string) => void)(e.target.value)} sx={{ minWidth: 240 }}>
            {axes.map((a) => <MenuItem key={key(a)} value={key(a)}>{a.name}{a.kind === 'target' ? ` (${t('visual.predicted')})` : ''}</MenuItem>)}
          </TextField>
        ))}
        <TextField select size="small" label={t('visual.featureGoal')} value={featureDir} onChange={(e) => setFeatureDir(Number(e.target.value))} sx={{ minWidth: 180 }}>
          <MenuItem value={-1}>{t('goals.minimize')}</MenuItem>
          <MenuItem value={1}>{t('goals.maximize')}</MenuItem>
        </TextField>
      </Box>
      <ParetoChart
        ariaLabel={t('visual.pareto')}
        points={result.trials}
        x={get(ax)}
        y={get(ay)}
        dir={[direction(result, ax, featureDir), direction(result, ay, featureDir)]}
        labels={{ x: `${ax.name} (${goalText(ax)})`, y: `${ay.name} (${goalText(ay)})`, all: t('visual.evaluated'), front: t('visual.front') }}
      />
      <Typography variant="caption" color="text.secondary">{t('visual.paretoHelp', { count: result.trials.length })}</Typography>
    </Paper>
  );
}

/** /optimization/regress/visualization/{project_id}/{algorithm}: Pareto front, parallel coordinates, profiler, sensitivity. */
export default function VisualizationPage() {
  const { t } = useTranslation(NS);
  const { project, run, result, algorithm } = useRun();
  const [target, setTarget] = useState('');
  useEffect(() => {
    if (result) setTarget((prev) => prev || result.targets[0].name);
  }, [result]);
  usePageTitle(project ? `${project.name} · ${t('details.visualization')}` : t('title'));
  if (!project) return <PageLoading />;
  const best = result?.best[0];
  return (
    <Box>
      <RunHeader project={project} run={run} algorithm={algorithm} page="visualization" />
      {!result || !best ? (
        <RunPending run={run} />
      ) : (
        <>
          <Pareto result={result} />
          <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
            <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1 }}>{t('visual.parallel')}</Typography>
            <ParallelCoordinates
              ariaLabel={t('visual.parallel')}
              points={result.trials}
              dims={[
                ...result.features.filter((f) => f.kind !== 'fixed').map((f) => ({ name: f.name, get: (c: Candidate) => c.features[f.name] })),
                ...result.targets.map((x) => ({ name: x.name, get: (c: Candidate) => c.predictions[x.name] })),
              ]}
              colorBy={result.features.filter((f) => f.kind !== 'fixed').length}
            />
          </Paper>
          <Paper variant="outlined" sx={{ p: 2 }}>
            <Box sx={{ display: 'flex', gap: 2, alignItems: 'center', flexWrap: 'wrap', mb: 1 }}>
              <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>{t('visual.profiler')}</Typography>
              {result.targets.length > 1 && (
                <TextField select size="small" label={t('models.target')} value={target} onChange={(e) => setTarget(e.target.value)} sx={{ minWidth: 200 }}>
                  {result.targets.map((x) => <MenuItem key={x.name} value={x.name}>{x.name}</MenuItem>)}
                </TextField>
              )}
            </Box>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>{t('visual.profilerHelp')}</Typography>
            <Box sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(280px, 1fr))', gap: 1 }}>
              {Object.entries(result.profiles).map(([f, prof]) => (
                <Box key={f}>
                  <ProfileChart ariaLabel={`${t('visual.profiler')} ${f}`} feature={f} profile={prof} target={target || result.targets[0].name} best={best.features[f]} />
                </Box>
              ))}
            </Box>
            <Typography variant="subtitle2" component="h3" sx={{ mt: 2 }}>{t('visual.sensitivity')}</Typography>
            <Table size="small" aria-label={t('visual.sensitivity')}>
              <TableHead>
                <TableRow>
                  <TableCell>{t('features.name')}</TableCell>
                  {result.targets.map((x) => <TableCell key={x.name}>{t('visual.spread', { name: x.name })}</TableCell>)}
                </TableRow>
              </TableHead>
              <TableBody>
                {Object.entries(result.sensitivity)
                  .sort((a, b) => (b[1][result.targets[0].name] ?? 0) - (a[1][result.targets[0].name] ?? 0))
                  .map(([f, s]) => (
                    <TableRow key={f}>
                      <TableCell>{f}</TableCell>
                      {result.targets.map((x) => <TableCell key={x.name}>{formatNumber(s[x.name])}</TableCell>)}
                    </TableRow>
                  ))}
              </TableBody>
            </Table>
          </Paper>
        </>
      )}
    </Box>
  );
}
