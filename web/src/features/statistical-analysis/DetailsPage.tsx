import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import LinearProgress from '@mui/material/LinearProgress';
import Link from '@mui/material/Link';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import DescriptionOutlinedIcon from '@mui/icons-material/DescriptionOutlined';
import DownloadIcon from '@mui/icons-material/Download';
import ReplayIcon from '@mui/icons-material/Replay';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import InfoGrid from '../../components/InfoGrid';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { closeSnackbar, showSnackbar } from '../../lib/feedback';
import { formatDateTime, formatInteger, formatNumber } from '../../lib/format';
import { type Alternative, downloadResult, type EqualVariance, type Evaluation, type Project, runProject, statKeys, type TestResult, useEvaluation, useProject, useRunState } from './api';
import { BoxStripChart, QQChart, ReferenceChart, ScatterFitChart } from './charts';
import DeleteProjectDialog from './DeleteProjectDialog';
import { AnovaTable, Card, ContingencyTable, n, pct, TukeyTable } from './ResultTables';
import { boxesOf, descriptiveRows, referenceOf } from '@mitate/rules';
import { formatP, formatStat, hasAlternative, meanLabelKey, methodLabel, NS, RUN_NOTICE, StateChip, testLabel } from './labels';



function Figure({ label, value, hint }: { label: string; value: ReactNode; hint?: string }) {
  return (
    <Paper variant="outlined" sx={{ p: 1.5, minWidth: 0 }}>
      <Typography variant="caption" color="text.secondary" component="p">
        {label}
      </Typography>
      <Typography variant="h6" component="p" sx={{ fontVariantNumeric: 'tabular-nums', wordBreak: 'break-word' }} title={hint}>
        {value}
      </Typography>
    </Paper>
  );
}

function RerunDialog({ project, open, onClose }: { project: Project; open: boolean; onClose: () => void }) {
  const { t } = useTranslation(NS);
  const queryClient = useQueryClient();
  const [alpha, setAlpha] = useState(String(project.significance_level));
  const [alternative, setAlternative] = useState<Alternative>(project.alternative);
  const [equal, setEqual] = useState<EqualVariance>(project.equal_variance);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (open) {
      setAlpha(String(project.significance_level));
      setAlternative(project.alternative);
      setEqual(project.equal_variance);
      setError(null);
    }
  }, [open, project]);
  const run = useMutation({
    mutationFn: () => runProject(project.id, { significance_level: Number(alpha), alternative, equal_variance: equal }),
    onSuccess: (p) => {
      queryClient.setQueryData(statKeys.project(project.id), p);
      void queryClient.invalidateQueries({ queryKey: statKeys.run(project.id) });
      void queryClient.invalidateQueries({ queryKey: ['statistical-analysis', 'list'] });
      showSnackbar(t('details.started'), 'success', RUN_NOTICE);
      onClose();
    },
  });
  const submit = () => {
    const a = Number(alpha);
    if (alpha.trim() === '' || !(a > 0 && a < 1)) return setError(t('errors.alphaRange'));
    run.mutate();
  };
  return (
    <Dialog open={open} onClose={run.isPending ? undefined : onClose} maxWidth="xs" fullWidth aria-labelledby="rerun-title">
      <DialogTitle id="rerun-title">{t('details.rerunTitle')}</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>{t('details.rerunText')}</DialogContentText>
        <Box sx={{ display: 'grid', gap: 2 }}>
          <TextField label={t('fields.significanceLevel')} value={alpha} onChange={(e) => { setAlpha(e.target.value); setError(null); }} error={!!error} helperText={error ?? t('fields.significanceHelp')} required slotProps={{ htmlInput: { inputMode: 'decimal' } }} />
          {hasAlternative(project.test_type) && (
            <TextField select label={t('fields.alternative')} value={alternative} onChange={(e) => setAlternative(e.target.value as Alternative)}>
              {(['two-sided', 'less', 'greater'] as const).map((a) => (
                <MenuItem key={a} value={a}>
                  {t(`alternatives.${a}`)}
                </MenuItem>
              ))}
            </TextField>
          )}
          {project.test_type === 'two_sample_t' && (
            <TextField select label={t('fields.equalVariance')} value={equal} onChange={(e) => setEqual(e.target.value as EqualVariance)}>
              {(['auto', 'student', 'welch'] as const).map((a) => (
                <MenuItem key={a} value={a}>
                  {t(`equalVariances.${a}`)}
                </MenuItem>
              ))}
            </TextField>
          )}
        </Box>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={run.isPending}>
          {t('register.cancel')}
        </Button>
        <Button variant="contained" startIcon={<ReplayIcon />} onClick={submit} disabled={run.isPending}>
          {t('details.rerun')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}


function Descriptives({ result }: { result: TestResult }) {
  const { t } = useTranslation(NS);
  const rows = descriptiveRows(result);
  const level = pct(result.confidence_level);
  return (
    <TableContainer>
      <Table size="small" aria-label={t('details.descriptives')}>
        <TableHead>
          <TableRow>
            <TableCell>{t('table.group')}</TableCell>
            {(['n', 'missing', 'mean', 'sd', 'se', 'median', 'q1', 'q3', 'min', 'max'] as const).map((k) => (
              <TableCell key={k} align="right">
                {t(`table.${k}`)}
              </TableCell>
            ))}
            <TableCell align="right">
              {t('table.ci')} ({level})
            </TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((g) => (
            <TableRow key={g.label}>
              <TableCell component="th" scope="row">
                {g.label}
              </TableCell>
              <TableCell align="right">{formatInteger(g.n)}</TableCell>
              <TableCell align="right">{formatInteger(g.missing)}</TableCell>
              {[g.mean, g.sd, g.se, g.median, g.q1, g.q3, g.min, g.max].map((v, i) => (
                <TableCell key={i} align="right">
                  {n(v)}
                </TableCell>
              ))}
              <TableCell align="right">{g.ci_low === null ? '—' : `[${n(g.ci_low)}, ${n(g.ci_high)}]`}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

function Assumptions({ result }: { result: TestResult }) {
  const { t } = useTranslation(NS);
  return (
    <TableContainer>
      <Table size="small" aria-label={t('details.assumptions')}>
        <TableHead>
          <TableRow>
            <TableCell>{t('table.check')}</TableCell>
            <TableCell>{t('table.method')}</TableCell>
            <TableCell>{t('table.target')}</TableCell>
            <TableCell align="right">{t('table.statistic')}</TableCell>
            <TableCell align="right">{t('table.p')}</TableCell>
            <TableCell>{t('table.result')}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {result.assumptions.map((a, i) => (
            <TableRow key={i}>
              <TableCell>{t(`checks.${a.check}`, { defaultValue: a.check })}</TableCell>
              <TableCell>{t(`checks.${a.method}`, { defaultValue: a.method })}</TableCell>
              <TableCell>{a.target || t('checks.all')}</TableCell>
              <TableCell align="right">{n(a.statistic)}</TableCell>
              <TableCell align="right">{a.p_value === null ? '—' : formatP(a.p_value)}</TableCell>
              <TableCell>
                <Chip size="small" label={t(a.passed ? 'table.passed' : 'table.failed')} color={a.passed ? 'success' : 'warning'} variant="outlined" />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

function ResultView({ project, result, evaluation }: { project: Project; result: TestResult; evaluation: Evaluation | undefined }) {
  const { t, i18n } = useTranslation(NS);
  const lang = i18n.language === 'ja' ? 'ja' : 'en';
  const ci = result.ci;
  const ref = referenceOf(result);
  const boxes = boxesOf(result);
  const distName = ref ? t(`dists.${ref.dist}`, { df: formatStat(ref.params.df), df1: formatStat(ref.params.df1), df2: formatStat(ref.params.df2) }) : '';
  const effect = evaluation?.effect_size;
  return (
    <Box sx={{ display: 'grid', gap: 2 }}>
      {evaluation && (
        <Alert severity={result.reject ? 'warning' : 'success'} variant="outlined" role="status" aria-label={t('columns.decision')}>
          <AlertTitle>{t(result.reject ? 'decision.rejectLong' : 'decision.keepLong')}</AlertTitle>
          <Typography data-testid="decision-sentence">{evaluation.sentence[lang]}</Typography>
        </Alert>
      )}
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr 1fr', md: 'repeat(5, 1fr)' }, gap: 1.5 }}>
        <Figure label={t('details.statistic')} value={evaluation?.statistic_text ?? `${result.statistic?.symbol} = ${formatStat(result.statistic?.value)}`} />
        <Figure label={t('details.pValue')} value={<span data-testid="p-value">{formatP(result.p_value)}</span>} hint={String(result.p_value)} />
        <Figure label={t('details.df')} value={result.df === null ? '—' : result.df2 !== null ? `${formatStat(result.df)}, ${formatStat(result.df2)}` : formatStat(result.df)} />
        <Figure
          label={ci ? `${t('details.ci', { level: pct(ci.level) })} ${t('details.ciOf', { what: t(`estimates.${ci.kind}`) })}` : t('details.estimate')}
          value={ci ? `[${formatStat(ci.low)}, ${formatStat(ci.high)}]${ci.approximate ? ` (${t('details.approximate')})` : ''}` : result.estimate ? `${t(`estimates.${result.estimate.kind}`)}: ${formatStat(result.estimate.value)}` : '—'}
        />
        <Figure
          label={effect ? `${t('details.effectSize')}: ${effect.name[lang]}` : t('details.effectSize')}
          value={effect ? (effect.magnitude_text ? t('details.magnitude', { value: formatStat(effect.value), magnitude: effect.magnitude_text[lang] }) : formatStat(effect.value)) : '—'}
        />
      </Box>
      {result.test_type === 'two_sample_t' && (
        <Typography variant="body2" color="text.secondary">
          {t('details.levene', { p: formatP(result.equal_variance.levene_p), method: t(`equalVariances.${result.equal_variance.pooled ? 'student' : 'welch'}`) })}
        </Typography>
      )}
      {evaluation && evaluation.warnings.length > 0 && (
        <Box sx={{ display: 'grid', gap: 1 }} aria-label={t('details.warnings')} role="list">
          {evaluation.warnings.map((w, i) => (
            <Alert key={i} severity={w.code === 'missing_dropped' || w.code === 'normality_subsampled' || w.code === 'zeros_dropped' ? 'info' : 'warning'} role="listitem">
              {w.text[lang]}
            </Alert>
          ))}
        </Box>
      )}
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', lg: '1fr 1fr' }, gap: 2 }}>
        {boxes && (
          <Card title={t('details.boxTitle')}>
            <BoxStripChart boxes={boxes.boxes} referenceLine={boxes.referenceLine} ariaLabel={t('details.boxTitle')} />
          </Card>
        )}
        {(result.test_type === 'pearson' || result.test_type === 'spearman') && (
          <Card title={t('details.scatterTitle')} subtitle={t('details.scatterShown', { shown: formatInteger(result.charts.scatter.shown), n: formatInteger(result.charts.scatter.n) })}>
            <ScatterFitChart result={result} ariaLabel={t('details.scatterTitle')} />
          </Card>
        )}
        {result.test_type === 'shapiro' && (
          <Card title={t('details.qqTitle')}>
            <QQChart result={result} ariaLabel={t('details.qqTitle')} />
          </Card>
        )}
        {ref && (
          <Card title={t('details.referenceTitle', { dist: distName })} subtitle={t('details.referenceHelp', { alpha: result.alpha })}>
            {ref.observed_off_chart && (
              <Typography variant="caption" color="text.secondary">
                {t('details.offChart', { value: formatStat(ref.observed) })}
              </Typography>
            )}
            <ReferenceChart curve={ref} ariaLabel={t('details.referenceTitle', { dist: distName })} />
          </Card>
        )}
      </Box>
      {result.groups.length > 0 && (
        <Card title={t('details.descriptives')}>
          <Descriptives result={result} />
        </Card>
      )}
      {result.test_type === 'anova' && <TukeyTable result={result} />}
      {result.test_type === 'anova' && <AnovaTable result={result} />}
      {result.test_type === 'chi_square' && <ContingencyTable result={result} />}
      {result.assumptions.length > 0 && (
        <Card title={t('details.assumptions')}>
          <Assumptions result={result} />
        </Card>
      )}
      <Typography variant="caption" color="text.secondary">
        {t('details.seconds', { s: formatNumber(Number(result.seconds.toFixed(3))) })} · {formatDateTime(project.finished_at)}
      </Typography>
    </Box>
  );
}

/** /statistical-analysis/details/{project_id}: settings, the run's progress, and the result. */
export default function DetailsPage() {
  const { t, i18n } = useTranslation(NS);
  const { project_id: id = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const project = useProject(id);
  const p = project.data;
  const run = useRunState(id, !!p);
  const state = run.data?.state ?? p?.state;
  const [rerunOpen, setRerunOpen] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [showLog, setShowLog] = useState(false);
  const lang = i18n.language === 'ja' ? 'ja' : 'en';
  const evaluation = useEvaluation(id, run.data?.finished_at ?? null, state === 'done' && !!run.data?.result);
  usePageTitle(p?.name);

  // When a run ends, the project (state, summary) is read again.
  const previous = useRef(state);
  useEffect(() => {
    // 'The test is running.' no longer holds once the result or the failure is on the page.
    if (run.data?.state === 'done' || run.data?.state === 'failed') closeSnackbar(RUN_NOTICE);
    if (previous.current === 'running' && state && state !== 'running') {
      void queryClient.invalidateQueries({ queryKey: statKeys.project(id) });
      void queryClient.invalidateQueries({ queryKey: ['statistical-analysis', 'list'] });
    }
    previous.current = state;
  }, [state, run.data?.state, id, queryClient]);

  const runNow = useMutation({
    mutationFn: () => runProject(id),
    onSuccess: (np) => {
      queryClient.setQueryData(statKeys.project(id), np);
      void queryClient.invalidateQueries({ queryKey: statKeys.run(id) });
    },
  });
  const download = useMutation({ mutationFn: (format: 'csv' | 'html') => downloadResult(p!, format, lang) });

  if (project.isLoading) return <PageLoading />;
  if (!p) return null;
  const result = run.data?.result ?? null;
  const settings = [
    { label: t('columns.dataset'), value: <Link component={RouterLink} to={`/dataset/details/${encodeURIComponent(p.dataset_id)}/training_data`}>{p.dataset_name}</Link> },
    { label: t('fields.testType'), value: methodLabel(t, p.test_type, result?.method ?? p.summary?.method) },
    { label: t('fields.variable1'), value: p.variable1 },
    ...(p.variable2 ? [{ label: p.category ? t('fields.pairKey') : t('fields.variable2'), value: p.variable2 }] : []),
    ...(p.category ? [{ label: t('fields.category'), value: p.category }] : []),
    ...(p.group1 !== null ? [{ label: `${t('fields.group1')} / ${t('fields.group2')}`, value: `${p.group1} / ${p.group2}` }] : []),
    ...(p.test_type === 'anova' ? [{ label: t('fields.groups'), value: p.groups.length ? p.groups.join(', ') : t('checks.all') }] : []),
    { label: t('fields.significanceLevel'), value: String(p.significance_level) },
    ...(hasAlternative(p.test_type) ? [{ label: t('fields.alternative'), value: t(`alternatives.${p.alternative}`) }] : []),
    ...(p.test_type === 'two_sample_t' ? [{ label: t('fields.equalVariance'), value: t(`equalVariances.${p.equal_variance}`) }] : []),
    ...(['one_sample_t', 'paired_t', 'wilcoxon'].includes(p.test_type)
      ? [{ label: t(meanLabelKey(p.test_type, p.category ? 'split' : p.variable2 ? 'columns' : 'one')), value: String(p.hypothetical_mean) }]
      : []),
    { label: t('columns.state'), value: <StateChip state={state ?? p.state} /> },
    { label: t('columns.createdAt'), value: formatDateTime(p.created_at) },
    ...(p.comment ? [{ label: t('fields.comment'), value: p.comment, wide: true }] : []),
  ];

  return (
    <>
      <PageHeader
        title={p.name}
        subtitle={`${testLabel(t, p.test_type)} · ${p.dataset_name}`}
        actions={
          <>
            <Button variant="outlined" startIcon={<ReplayIcon />} onClick={() => setRerunOpen(true)} disabled={state === 'running'}>
              {t('details.rerun')}
            </Button>
            <Tooltip title={result ? '' : t('details.ready')}>
              <span>
                <Button variant="outlined" startIcon={<DownloadIcon />} onClick={() => download.mutate('csv')} disabled={!result || download.isPending}>
                  {t('details.downloadCsv')}
                </Button>
              </span>
            </Tooltip>
            <Tooltip title={result ? '' : t('details.ready')}>
              <span>
                <Button variant="outlined" startIcon={<DescriptionOutlinedIcon />} onClick={() => download.mutate('html')} disabled={!result || download.isPending}>
                  {t('details.downloadReport')}
                </Button>
              </span>
            </Tooltip>
            <Button color="error" variant="outlined" startIcon={<DeleteOutlineIcon />} onClick={() => setDeleting(true)}>
              {t('details.delete')}
            </Button>
          </>
        }
      />
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
        <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1.5 }}>
          {t('details.settings')}
        </Typography>
        <InfoGrid items={settings} minWidth={180} />
      </Paper>
      {state === 'running' && (
        <Paper variant="outlined" sx={{ p: 2, mb: 2 }} role="status">
          <Typography sx={{ mb: 1 }}>{run.data?.job_state === 'queued' ? t('details.queued') : t('details.running')}</Typography>
          <LinearProgress variant={run.data?.progress ? 'determinate' : 'indeterminate'} value={(run.data?.progress ?? 0) * 100} />
          {run.data?.message && (
            <Typography variant="caption" color="text.secondary">
              {run.data.message}
            </Typography>
          )}
        </Paper>
      )}
      {state === 'failed' && (
        <Alert
          severity="error"
          sx={{ mb: 2 }}
          action={
            <Button color="inherit" size="small" startIcon={<ReplayIcon />} onClick={() => setRerunOpen(true)}>
              {t('details.rerun')}
            </Button>
          }
        >
          <AlertTitle>{t('details.failed')}</AlertTitle>
          {run.data?.error ?? p.error}
          {run.data?.log && (
            <Box sx={{ mt: 1 }}>
              <Link component="button" type="button" onClick={() => setShowLog((s) => !s)}>
                {t('details.showLog')}
              </Link>
              {showLog && (
                <Box component="pre" sx={{ mt: 1, maxHeight: 240, overflow: 'auto', fontSize: 12, whiteSpace: 'pre-wrap' }}>
                  {run.data.log}
                </Box>
              )}
            </Box>
          )}
        </Alert>
      )}
      {state === 'ready' && (
        <Alert severity="info" sx={{ mb: 2 }} action={<Button color="inherit" size="small" onClick={() => runNow.mutate()} disabled={runNow.isPending}>{t('details.runNow')}</Button>}>
          {t('details.ready')}
        </Alert>
      )}
      {state === 'done' && result && <ResultView project={p} result={result} evaluation={evaluation.data} />}
      <RerunDialog project={p} open={rerunOpen} onClose={() => setRerunOpen(false)} />
      <DeleteProjectDialog project={deleting ? p : null} onClose={() => setDeleting(false)} onDeleted={() => navigate('/statistical-analysis', { replace: true })} />
    </>
  );
}
