import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Switch from '@mui/material/Switch';
import Tab from '@mui/material/Tab';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tabs from '@mui/material/Tabs';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { useClassificationProjects, useDetail, useImageProject, type GalleryItem } from './api';
import { AuthImage, FilterField, fmt, NS, pct } from './shared';

const enc = encodeURIComponent;

export interface ClassRow {
  label: string;
  support: number;
  predicted: number;
  correct: number;
  precision: number | null;
  recall: number | null;
  f1: number | null;
  /** never predicted (precision) or absent from the test images (recall): 0/0, counted as 0 like scikit-learn's zero_division=0 */
  undefinedPrecision: boolean;
  undefinedRecall: boolean;
  confusedWith: { label: string; n: number } | null;
}

/** Per-class figures from the test gallery: what each class's row of the confusion matrix says, in words. */
export function classRows(classes: string[], gallery: GalleryItem[]): ClassRow[] {
  return classes.map((c) => {
    const actual = gallery.filter((g) => g.label === c);
    const predicted = gallery.filter((g) => g.predicted === c);
    const correct = actual.filter((g) => g.predicted === c).length;
    // 0/0 is 0, as the engine's macro averages compute it (scikit-learn zero_division=0); the page says which is which
    const undefinedPrecision = !predicted.length;
    const undefinedRecall = !actual.length;
    const precision = undefinedPrecision ? 0 : correct / predicted.length;
    const recall = undefinedRecall ? 0 : correct / actual.length;
    const f1 = undefinedPrecision && undefinedRecall ? null : precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
    const wrong = new Map<string, number>();
    for (const g of actual) if (g.predicted !== c) wrong.set(g.predicted, (wrong.get(g.predicted) ?? 0) + 1);
    const top = [...wrong.entries()].sort((a, b) => b[1] - a[1])[0];
    return { label: c, support: actual.length, predicted: predicted.length, correct, precision, recall, f1, undefinedPrecision, undefinedRecall, confusedWith: top ? { label: top[0], n: top[1] } : null };
  });
}

function Thumb({ g, projectId, datasetId, modelKey, heat, onOpen }: { g: GalleryItem; projectId: string; datasetId: string; modelKey: string; heat: boolean; onOpen: (g: GalleryItem) => void }) {
  const { t } = useTranslation(NS);
  return (
    <Box role="listitem" sx={{ border: 2, borderColor: g.predicted === g.label ? 'success.light' : 'error.main', borderRadius: 1, p: 0.5, cursor: 'pointer' }} onClick={() => onOpen(g)}>
      <AuthImage
        size={130}
        alt={`${g.label} → ${g.predicted}`}
        path={heat && g.heatmap ? `/api/image/train/heatmap/${enc(projectId)}/${enc(modelKey)}/${g.id}` : `/api/image/dataset/${enc(datasetId)}/image/${g.id}?thumb=1`}
      />
      <Typography variant="caption" component="div">
        {g.label} → <b>{g.predicted}</b> · {t('result.score')} {fmt(g.score, 2)}
      </Typography>
    </Box>
  );
}

/**
 * /training/classification/images and /training/classification/class (SPEC §2 'Results and reports'): the test
 * images of an image classification model, browsed by image (filters by true and predicted class, errors only,
 * heat-maps, full-size view with class probabilities) or by class (precision, recall, F1 and the most frequent
 * confusion of each class, with that class's images). The project and model are chosen on the page (?project_id=&model_key=).
 */
/** Per class: support, precision, recall, F1 and the class it is most often taken for; a row picks its images. */
function PerClassTable({ rows, selected, onSelect }: { rows: ReturnType<typeof classRows>; selected: string; onSelect: (label: string) => void }) {
  const { t } = useTranslation(NS);
  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
      <Typography variant="h6">{t('browse.perClass')}</Typography>
      <Table size="small" aria-label={t('browse.perClass')}>
        <TableHead>
          <TableRow>
            <TableCell>{t('dataset.class')}</TableCell>
            <TableCell align="right">{t('browse.support')}</TableCell>
            <TableCell align="right">{t('browse.predictedAs')}</TableCell>
            <TableCell align="right">{t('metric.precision')}</TableCell>
            <TableCell align="right">{t('metric.recall')}</TableCell>
            <TableCell align="right">{t('metric.f1')}</TableCell>
            <TableCell>{t('browse.confusedWith')}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((r) => (
            <TableRow key={r.label} hover selected={selected === r.label} sx={{ cursor: 'pointer' }} onClick={() => onSelect(r.label)}>
              <TableCell component="th">{r.label}</TableCell>
              <TableCell align="right">{r.support}</TableCell>
              <TableCell align="right">{r.predicted}</TableCell>
              <TableCell align="right" title={r.undefinedPrecision ? t('browse.zeroDivision') : undefined}>
                {pct(r.precision)}
                {r.undefinedPrecision && '*'}
              </TableCell>
              <TableCell align="right" title={r.undefinedRecall ? t('browse.zeroDivision') : undefined}>
                {pct(r.recall)}
                {r.undefinedRecall && '*'}
              </TableCell>
              <TableCell align="right">{fmt(r.f1)}</TableCell>
              <TableCell>{r.confusedWith ? t('browse.confusion', { label: r.confusedWith.label, n: r.confusedWith.n }) : '—'}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {rows.some((r) => r.undefinedPrecision || r.undefinedRecall) && (
        <Typography variant="caption" color="text.secondary" component="p">
          * {t('browse.zeroDivision')}
        </Typography>
      )}
      <Typography variant="caption" color="text.secondary">
        {t('browse.classHelp')}
      </Typography>
    </Paper>
  );
}

/** One image large, with its heat-map and class probabilities. */
function ImageDialog({ open, p, modelKey, onClose }: { open: GalleryItem | null; p: NonNullable<ReturnType<typeof useImageProject>['data']>; modelKey: string; onClose: () => void }) {
  const { t } = useTranslation(NS);
  return (
    <Dialog open={!!open} onClose={onClose} maxWidth="lg">
      <DialogTitle>
        {open?.label} → {open?.predicted}
      </DialogTitle>
      <DialogContent sx={{ display: 'flex', gap: 2, flexWrap: 'wrap' }}>
        {open && <AuthImage path={`/api/image/dataset/${enc(p.dataset_id)}/image/${open.id}`} alt={t('browse.original')} size={420} />}
        {open && open.heatmap && <AuthImage path={`/api/image/train/heatmap/${enc(p.project_id)}/${enc(modelKey)}/${open.id}`} alt={t('result.heatmap')} size={420} />}
        {open?.probabilities && (
          <Table size="small" aria-label={t('browse.probabilities')} sx={{ width: 'auto' }}>
            <TableBody>
              {Object.entries(open.probabilities)
                .sort((a, b) => b[1] - a[1])
                .map(([c, v]) => (
                  <TableRow key={c}>
                    <TableCell component="th">{c}</TableCell>
                    <TableCell align="right">{pct(v)}</TableCell>
                  </TableRow>
                ))}
            </TableBody>
          </Table>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('dataset.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}

export default function ClassificationBrowse({ view }: { view: 'images' | 'class' }) {
  const { t } = useTranslation(NS);
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const projects = useClassificationProjects();
  const projectId = params.get('project_id') ?? '';
  const project = useImageProject(projectId || undefined);
  const doneModels = (project.data?.models ?? []).filter((m) => m.state === 'done');
  const modelKey = params.get('model_key') || doneModels[0]?.model_key || '';
  const detail = useDetail(projectId || undefined, doneModels.some((m) => m.model_key === modelKey) ? modelKey : undefined);
  const [trueClass, setTrueClass] = useState('');
  const [predClass, setPredClass] = useState('');
  const [errorsOnly, setErrorsOnly] = useState(false);
  const [heat, setHeat] = useState(false);
  const [selected, setSelected] = useState('');
  const [open, setOpen] = useState<GalleryItem | null>(null);
  usePageTitle(t(view === 'images' ? 'browse.imagesTitle' : 'browse.classTitle'));

  const report = detail.data?.report;
  const projectClasses = project.data?.classes;
  const classes = useMemo(() => report?.classes ?? projectClasses ?? [], [report, projectClasses]);
  const gallery = useMemo(() => report?.gallery ?? [], [report]);
  const rows = useMemo(() => classRows(classes, gallery), [classes, gallery]);
  const choose = (patch: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    setParams(next, { replace: true });
  };
  const go = (to: 'images' | 'class') => navigate(`/training/classification/${to}?${params.toString()}`);
  const filtered = gallery.filter((g) => (!trueClass || g.label === trueClass) && (!predClass || g.predicted === predClass) && (!errorsOnly || g.predicted !== g.label));
  const p = project.data;

  return (
    <Box sx={{ maxWidth: 1300 }}>
      <PageHeader title={t(view === 'images' ? 'browse.imagesTitle' : 'browse.classTitle')} subtitle={t('browse.subtitle')} />
      <Tabs value={view} onChange={(_, v) => go(v)} sx={{ mb: 2 }}>
        <Tab value="images" label={t('browse.byImage')} />
        <Tab value="class" label={t('browse.byClass')} />
      </Tabs>
      <Paper variant="outlined" sx={{ p: 2, mb: 2, display: 'flex', gap: 2, flexWrap: 'wrap', alignItems: 'center' }}>
        <TextField select size="small" label={t('browse.project')} value={projectId} onChange={(e) => choose({ project_id: e.target.value, model_key: '' })} sx={{ minWidth: 280 }}>
          {(projects.data ?? []).map((x) => (
            <MenuItem key={x.project_id} value={x.project_id}>
              {x.name}
            </MenuItem>
          ))}
        </TextField>
        <TextField select size="small" label={t('browse.model')} value={doneModels.some((m) => m.model_key === modelKey) ? modelKey : ''} onChange={(e) => choose({ model_key: e.target.value })} sx={{ minWidth: 280 }} disabled={!doneModels.length}>
          {doneModels.map((m) => (
            <MenuItem key={m.model_key} value={m.model_key}>
              {m.model_key} · {t(`algo.${m.algorithm}`)}
            </MenuItem>
          ))}
        </TextField>
        {p && detail.data && (
          <Button component={RouterLink} to={`/training/result/classification/details/${enc(p.project_id)}/${enc(modelKey)}`}>
            {t('browse.openResult')}
          </Button>
        )}
      </Paper>
      {projects.data && !projects.data.length && <Alert severity="info">{t('browse.noProjects')}</Alert>}
      {projects.data && projects.data.length > 0 && !projectId && <Alert severity="info">{t('browse.chooseProject')}</Alert>}
      {p && !doneModels.length && <Alert severity="info">{t('browse.noModel')}</Alert>}
      {projectId && project.isPending && <PageLoading />}
      {detail.data && p && view === 'images' && (
        <Paper variant="outlined" sx={{ p: 2 }}>
          <Box sx={{ display: 'flex', gap: 2, alignItems: 'center', flexWrap: 'wrap', mb: 1 }}>
            <FilterField label={t('browse.trueClass')} value={trueClass} options={classes} onChange={setTrueClass} minWidth={170} />
            <FilterField label={t('browse.predictedClass')} value={predClass} options={classes} onChange={setPredClass} minWidth={170} />
            <FormControlLabel control={<Switch checked={errorsOnly} onChange={(e) => setErrorsOnly(e.target.checked)} />} label={t('result.errorsOnly')} />
            <FormControlLabel control={<Switch checked={heat} onChange={(e) => setHeat(e.target.checked)} />} label={t('result.heatmap')} />
            <Typography variant="body2" color="text.secondary" sx={{ ml: 'auto' }}>
              {t('browse.shown', { n: filtered.length, total: gallery.length })}
            </Typography>
          </Box>
          {!filtered.length && <Typography color="text.secondary">{t('result.none')}</Typography>}
          <Box role="list" aria-label={t('browse.testImages')} sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(140px, 1fr))', gap: 1.5 }}>
            {filtered.map((g) => (
              <Thumb key={g.id} g={g} projectId={p.project_id} datasetId={p.dataset_id} modelKey={modelKey} heat={heat} onOpen={setOpen} />
            ))}
          </Box>
        </Paper>
      )}
      {detail.data && p && view === 'class' && (
        <>
          <PerClassTable rows={rows} selected={selected} onSelect={setSelected} />
          {selected && (
            <Paper variant="outlined" sx={{ p: 2 }}>
              {(
                [
                  ['browse.correct', gallery.filter((g) => g.label === selected && g.predicted === selected)],
                  ['browse.missed', gallery.filter((g) => g.label === selected && g.predicted !== selected)],
                  ['browse.wronglyAs', gallery.filter((g) => g.label !== selected && g.predicted === selected)],
                ] as const
              ).map(([k, list]) => (
                <Box key={k} sx={{ mb: 2 }}>
                  <Typography variant="subtitle1">
                    {t(k, { label: selected })} ({list.length})
                  </Typography>
                  {!list.length && <Typography color="text.secondary">{t('result.none')}</Typography>}
                  <Box role="list" aria-label={t(k, { label: selected })} sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(140px, 1fr))', gap: 1.5 }}>
                    {list.map((g) => (
                      <Thumb key={g.id} g={g} projectId={p.project_id} datasetId={p.dataset_id} modelKey={modelKey} heat={heat} onOpen={setOpen} />
                    ))}
                  </Box>
                </Box>
              ))}
            </Paper>
          )}
        </>
      )}
      {p && <ImageDialog open={open} p={p} modelKey={modelKey} onClose={() => setOpen(null)} />}
    </Box>
  );
}
