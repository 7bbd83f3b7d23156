import DownloadIcon from '@mui/icons-material/Download';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import MenuItem from '@mui/material/MenuItem';
import Tab from '@mui/material/Tab';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tabs from '@mui/material/Tabs';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageLoading from '../../components/PageLoading';
import ProjectFrame from '../../components/ProjectFrame';
import Section from '../../components/Section';
import { useProjectActions } from '../../components/useProjectActions';
import {
  type Algorithm, type Criteria, type DesignResult, designProjects, doeKeys, downloadDesign, downloadExperimentSheet, evaluateDesign, nextRound,
  type Project, type Round, type Row, useEvaluation, useProject,
} from './api';
import { useProjectList } from '../training/api';
import { PairwisePlots, TernaryPlot, VarianceProfile } from './charts';
import FileField from './FileField';
import { methodLabel } from './labels';
import { detailsPath, StateChip } from './ProjectListPage';

const pct = (v: number | null | undefined) => (v === null || v === undefined ? '—' : `${(v * 100).toFixed(2)}%`);
const num = (v: number | null | undefined, d = 4) => (v === null || v === undefined ? '—' : Number(v.toPrecision(d + 2)).toString());

function DesignTable({ result, round }: { result: DesignResult; round: Round }) {
  const { t } = useTranslation('optimalDesign');
  const names = result.variables.map((v) => v.name);
  const measured = round.results ?? [];
  const responses = measured.length ? Object.keys(measured[0]).filter((k) => !names.includes(k)) : [];
  return (
    <Box sx={{ overflowX: 'auto' }}>
      <Table size="small" aria-label={t('design')}>
        <TableHead>
          <TableRow>
            <TableCell>{t('run')}</TableCell>
            {names.map((n) => (
              <TableCell key={n} align="right">{n}</TableCell>
            ))}
            {responses.map((n) => (
              <TableCell key={n} align="right">{n}</TableCell>
            ))}
            {result.bo && (
              <>
                <TableCell align="right">{t('bo.mean')}</TableCell>
                <TableCell align="right">{t('bo.sd')}</TableCell>
                <TableCell align="right">{t('bo.ei')}</TableCell>
              </>
            )}
          </TableRow>
        </TableHead>
        <TableBody>
          {result.runs.map((r, i) => (
            <TableRow key={i}>
              <TableCell>{i + 1}</TableCell>
              {names.map((n) => (
                <TableCell key={n} align="right">{String(r[n])}</TableCell>
              ))}
              {responses.map((n) => (
                <TableCell key={n} align="right">{String(measured[i]?.[n] ?? '')}</TableCell>
              ))}
              {result.bo && (
                <>
                  <TableCell align="right">{num(result.bo.mean[i])}</TableCell>
                  <TableCell align="right">{num(result.bo.sd[i])}</TableCell>
                  <TableCell align="right">{num(result.bo.ei[i])}</TableCell>
                </>
              )}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Box>
  );
}

function CriteriaTable({ rows }: { rows: { label: string; c: Criteria | null }[] }) {
  const { t } = useTranslation('optimalDesign');
  const lines: [string, (c: Criteria) => string][] = [
    [t('eff.runs'), (c) => String(c.runs)],
    [t('eff.terms'), (c) => String(c.terms)],
    [t('eff.d'), (c) => pct(c.d_relative)],
    [t('eff.a'), (c) => pct(c.a_relative)],
    [t('eff.g'), (c) => pct(c.g_efficiency)],
    [t('eff.i'), (c) => pct(c.i_efficiency)],
    [t('eff.dAbs'), (c) => pct(c.d_efficiency)],
    [t('eff.aAbs'), (c) => pct(c.a_efficiency)],
    [t('eff.iValue'), (c) => num(c.i_value)],
    [t('eff.det'), (c) => num(c.det_xtx, 6)],
  ];
  return (
    <Table size="small" aria-label={t('efficiencies')} sx={{ maxWidth: 640 }}>
      {rows.length > 1 && (
        <TableHead>
          <TableRow>
            <TableCell>{t('criterion')}</TableCell>
            {rows.map((r) => (
              <TableCell key={r.label} align="right">{r.label}</TableCell>
            ))}
          </TableRow>
        </TableHead>
      )}
      <TableBody>
        {lines.map(([label, f]) => (
          <TableRow key={label}>
            <TableCell>{label}</TableCell>
            {rows.map((r) => (
              <TableCell key={r.label} align="right">{r.c ? f(r.c) : '—'}</TableCell>
            ))}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

function NextRound({ project, round }: { project: Project; round: Round }) {
  const { t } = useTranslation('optimalDesign');
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [algorithm, setAlgorithm] = useState<Algorithm>('bayesian');
  const [n, setN] = useState('4');
  const [response, setResponse] = useState(project.settings.responses[0] ?? '');
  const [direction, setDirection] = useState<'maximize' | 'minimize'>('maximize');
  const [surrogate, setSurrogate] = useState('gp');
  const [busy, setBusy] = useState(false);
  // trained regression models whose features are this project's variables can serve as the BO mean
  const trained = useProjectList('', 'regression', 1, 100);
  const models = (trained.data?.items ?? []).flatMap((tp) =>
    tp.models.filter((m) => m.state === 'done').map((m) => ({ key: `${tp.project_id}|${m.model_key}`, label: `${tp.name} · ${m.model_name}` })),
  );
  async function go() {
    setBusy(true);
    try {
      const [project_id, model_key] = surrogate.split('|');
      const bo = algorithm === 'bayesian' ? { response, direction, model: surrogate === 'gp' ? null : { project_id, model_key } } : null;
      const p = await nextRound(project.id, { algorithm, n_runs: Number(n), bo }, file);
      await qc.invalidateQueries({ queryKey: doeKeys.all });
      navigate(detailsPath(p.id, p.rounds));
    } catch {
      // shown by the message dialog
    } finally {
      setBusy(false);
    }
  }
  return (
    <Section title={t('nextRound')}>
      <FileField label={t('resultsFile')} file={file} onChange={setFile} testId="results-file" />
      <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', mt: 1 }}>
        <TextField size="small" select label={t('steps.algorithm')} value={algorithm} onChange={(e) => setAlgorithm(e.target.value as Algorithm)} sx={{ minWidth: 260 }}>
          {(['bayesian', 'd_optimal', 'i_optimal', 'space_filling'] as const).map((a) => (
            <MenuItem key={a} value={a}>{t(`algorithm.${a}`)}</MenuItem>
          ))}
        </TextField>
        <TextField size="small" label={t('nRuns')} value={n} onChange={(e) => setN(e.target.value)} sx={{ width: 200 }} />
        {algorithm === 'bayesian' && (
          <>
            <TextField size="small" select label={t('response')} value={response} onChange={(e) => setResponse(e.target.value)} sx={{ minWidth: 160 }}>
              {project.settings.responses.map((r) => (
                <MenuItem key={r} value={r}>{r}</MenuItem>
              ))}
            </TextField>
            <TextField size="small" select label={t('direction')} value={direction} onChange={(e) => setDirection(e.target.value as 'maximize' | 'minimize')} sx={{ minWidth: 140 }}>
              <MenuItem value="maximize">{t('maximize')}</MenuItem>
              <MenuItem value="minimize">{t('minimize')}</MenuItem>
            </TextField>
            <TextField size="small" select label={t('surrogate')} value={surrogate} onChange={(e) => setSurrogate(e.target.value)} sx={{ minWidth: 260 }}>
              <MenuItem value="gp">{t('bo.surrogate_gp')}</MenuItem>
              {models.map((m) => (
                <MenuItem key={m.key} value={m.key}>{m.label}</MenuItem>
              ))}
            </TextField>
          </>
        )}
        <Button variant="contained" disabled={busy || round.state === 'running' || !(Number(n) >= 1)} onClick={go}>
          {t('propose')}
        </Button>
      </Box>
      {busy && <LinearProgress sx={{ mt: 2 }} />}
    </Section>
  );
}

function EvaluatePanel({ project }: { project: Project }) {
  const { t } = useTranslation('optimalDesign');
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const ev = useEvaluation(project.id, project.eval_state !== null);
  const qc = useQueryClient();
  async function go() {
    if (!file) return;
    setBusy(true);
    try {
      await evaluateDesign(project.id, file);
      await qc.invalidateQueries({ queryKey: doeKeys.all });
    } catch {
      // shown by the message dialog
    } finally {
      setBusy(false);
    }
  }
  const e = ev.data?.evaluation;
  return (
    <Section title={t('evaluate')}>
      <Typography variant="body2" color="text.secondary">{t('evaluateHelp')}</Typography>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2 }}>
        <FileField label={t('chooseFile')} file={file} onChange={setFile} testId="evaluate-file" />
        <Button variant="outlined" disabled={!file || busy} onClick={go}>{t('evaluateRun')}</Button>
      </Box>
      {busy && <LinearProgress />}
      {e && <CriteriaTable rows={[{ label: t('yours'), c: e.user }, { label: t('ours'), c: e.ours }]} />}
    </Section>
  );
}

function RoundView({ project, round }: { project: Project; round: Round }) {
  const { t } = useTranslation('optimalDesign');
  if (round.state === 'running') {
    return (
      <Box sx={{ my: 3 }}>
        <Typography>{t('computing')}</Typography>
        <LinearProgress />
      </Box>
    );
  }
  if (round.state === 'failed' || !round.result) return <Alert severity="error">{`${t('failed')}: ${round.error ?? ''}`}</Alert>;
  const r = round.result;
  const previous: Row[] = r.existing;
  const mixture = r.variables.filter((v) => v.type === 'mixture');
  const numeric = r.variables.filter((v) => v.type !== 'categorical');
  const fits = Object.entries(r.fits);
  return (
    <Box>
      <Section title={`${t('design')} · ${t(`algorithm.${r.algorithm}`)}`}>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          {`${t('method')}: ${methodLabel(t, r.method)} · ${t('candidates', { n: r.candidates })}${r.seconds ? ` · ${t('seconds', { s: r.seconds.toFixed(1) })}` : ''}`}
        </Typography>
        {r.bo && <Typography variant="body2" sx={{ mb: 1 }}>{`${t(`bo.surrogate_${r.bo.surrogate}`)} · ${t('bo.best', { v: num(r.bo.best_observed) })}`}</Typography>}
        <DesignTable result={r} round={round} />
        {previous.length > 0 && <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>{`${t('existingRuns')}: ${previous.length}`}</Typography>}
      </Section>
      <Section title={t('space')}>
        {mixture.length === 3 && numeric.length === 3 ? <TernaryPlot result={r} previous={previous} /> : numeric.length >= 2 ? <PairwisePlots result={r} previous={previous} /> : null}
      </Section>
      <Section title={t('efficiencies')}>
        {r.criteria.singular && <Alert severity="warning" sx={{ mb: 1 }}>{t('singular')}</Alert>}
        <CriteriaTable rows={[{ label: t('design'), c: r.criteria }]} />
        <Typography variant="caption" color="text.secondary">{t('effHelp', { points: r.region_points })}</Typography>
        {Object.keys(r.criteria.vif).length > 0 && (
          <>
            <Typography variant="subtitle2" sx={{ mt: 2 }}>{t('vif')}</Typography>
            <Table size="small" aria-label={t('vif')} sx={{ maxWidth: 420 }}>
              <TableBody>
                {Object.entries(r.criteria.vif).map(([k, v]) => (
                  <TableRow key={k}>
                    <TableCell>{k}</TableCell>
                    <TableCell align="right">{num(v, 3)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </>
        )}
        {r.criteria.variance_profile && (
          <>
            <Typography variant="subtitle2" sx={{ mt: 2 }}>{t('profile')}</Typography>
            <VarianceProfile profile={r.criteria.variance_profile} />
          </>
        )}
      </Section>
      {fits.map(([name, f]) => (
        <Section key={name} title={`${t('fit')}: ${name} (R² ${num(f.r2)}, RMSE ${num(f.rmse)})`}>
          <Table size="small">
            <TableHead>
              <TableRow>
                <TableCell>{t('term')}</TableCell>
                <TableCell align="right">{t('estimate')}</TableCell>
                <TableCell align="right">{t('se')}</TableCell>
                <TableCell align="right">{t('p')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {f.terms.map((x) => (
                <TableRow key={x.term}>
                  <TableCell>{x.term}</TableCell>
                  <TableCell align="right">{num(x.estimate)}</TableCell>
                  <TableCell align="right">{num(x.std_error)}</TableCell>
                  <TableCell align="right">{num(x.p_value, 3)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Section>
      ))}
      {round.round === project.rounds && <NextRound key={round.round} project={project} round={round} />}
    </Box>
  );
}

export default function DetailsPage() {
  const { t } = useTranslation('optimalDesign');
  const { project_id = '', model } = useParams();
  const navigate = useNavigate();
  const q = useProject(project_id);
  const actions = useProjectActions(designProjects, project_id, q.data);
  usePageTitle(q.data?.name ?? t('title'));
  if (!q.data) return <PageLoading />;
  const p = q.data;
  const current = model ? Number(model) : p.rounds;
  const round = p.round_list.find((r) => r.round === current) ?? p.round_list[p.round_list.length - 1];
  return (
    <ProjectFrame
      name={p.name}
      typeLabel={t('title')}
      state={<StateChip state={p.state} />}
      facts={[`${t('col.rounds')} ${p.rounds}`, `${t('col.variables')} ${p.settings.variables.length}`, p.comment]}
      actions={
        <>
          <Button startIcon={<DownloadIcon />} variant="outlined" onClick={() => downloadExperimentSheet(p.id, round.round)} disabled={!round?.result}>
            {t('experimentSheet')}
          </Button>
          <Button startIcon={<DownloadIcon />} variant="outlined" onClick={() => downloadDesign(p.id)}>
            {t('downloadCsv')}
          </Button>
        </>
      }
      {...actions}
    >
      <Tabs value={round?.round ?? false} onChange={(_, v: number) => navigate(detailsPath(p.id, v))} sx={{ mb: 2 }}>
        {p.round_list.map((r) => (
          <Tab key={r.round} value={r.round} label={`${t('round', { n: r.round })} · ${t(`algorithm.${r.algorithm}`)}`} />
        ))}
      </Tabs>
      {round && <RoundView project={p} round={round} />}
      {round?.result && <EvaluatePanel project={p} />}
    </ProjectFrame>
  );
}
