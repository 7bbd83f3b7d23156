import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Pagination from '@mui/material/Pagination';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { useCanWrite } from '../../api/me';
import PageLoading from '../../components/PageLoading';
import { useGallery, useImageDataset } from './api';
import { AuthImage, CountsTable, FilterField, NS, SPLITS } from './shared';

const PAGE = 24;

/** An image dataset: counts per class and split, skipped ZIP entries, a paged thumbnail gallery and a full-size viewer. */
export default function DatasetImages({ id }: { id: string }) {
  const { t } = useTranslation(NS);
  const { data } = useImageDataset(id);
  const [split, setSplit] = useState('');
  const [label, setLabel] = useState('');
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<{ id: string; name: string } | null>(null);
  const [showSkipped, setShowSkipped] = useState(false);
  const gallery = useGallery(id, page, PAGE, split, label);
  const canWrite = useCanWrite();
  if (!data) return <PageLoading />;
  const img = data.image;
  const splits = SPLITS.filter((s) => img.counts[s]);
  const kind = img.kind ?? data.training_type;
  return (
    <Box>
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
        <Box sx={{ display: 'flex', gap: 2, alignItems: 'center', flexWrap: 'wrap' }}>
          <Typography variant="h6" sx={{ flex: 1 }}>
            {t('dataset.counts')}
          </Typography>
          {canWrite && (
            <Button variant="outlined" component={RouterLink} to={`/pre-processing/details/${encodeURIComponent(id)}`}>
              {t('pre.open')}
            </Button>
          )}
          {(kind === 'analysis' || kind === 'classification') && (
            <Button variant="contained" component={RouterLink} to={`/training/${kind}/register/${encodeURIComponent(id)}`}>
              {t(kind === 'analysis' ? 'dataset.useAnalysis' : 'dataset.useClassification')}
            </Button>
          )}
        </Box>
        {/* an unlabelled set: its images under one row, '—' */}
        <CountsTable classes={img.classes.length ? img.classes : ['']} counts={img.counts} label={t('dataset.counts')} mt={1} />
        {img.skipped.length > 0 && (
          <Button size="small" sx={{ mt: 1 }} onClick={() => setShowSkipped(true)}>
            {t('dataset.skipped', { n: img.skipped.length })}
          </Button>
        )}
      </Paper>
      <Box sx={{ display: 'flex', gap: 2, mb: 2, flexWrap: 'wrap' }}>
        <FilterField label={t('dataset.split')} value={split} options={splits} labelOf={(s) => t(`dataset.${s}`)} onChange={(v) => (setSplit(v), setPage(1))} minWidth={160} />
        <FilterField label={t('dataset.class')} value={label} options={img.classes} onChange={(v) => (setLabel(v), setPage(1))} minWidth={160} />
      </Box>
      <Box role="list" aria-label={t('dataset.title')} sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(140px, 1fr))', gap: 1.5 }}>
        {gallery.data?.items.map((it) => (
          <Box role="listitem" key={it.id} sx={{ cursor: 'pointer' }} onClick={() => setOpen({ id: it.id, name: it.name })}>
            <AuthImage path={`/api/image/dataset/${encodeURIComponent(id)}/image/${it.id}?thumb=1`} alt={it.name} />
            <Typography variant="caption" noWrap component="div" title={it.name}>
              {it.label ?? ''} · {t(`dataset.${it.split}`)}
            </Typography>
          </Box>
        ))}
      </Box>
      {gallery.data && gallery.data.total > PAGE && <Pagination sx={{ mt: 2 }} count={Math.ceil(gallery.data.total / PAGE)} page={page} onChange={(_, p) => setPage(p)} />}
      <Dialog open={!!open} onClose={() => setOpen(null)} maxWidth="lg">
        <DialogTitle>{open?.name}</DialogTitle>
        <DialogContent>{open && <AuthImage path={`/api/image/dataset/${encodeURIComponent(id)}/image/${open.id}`} alt={open.name} size={600} />}</DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(null)}>{t('dataset.close')}</Button>
        </DialogActions>
      </Dialog>
      <Dialog open={showSkipped} onClose={() => setShowSkipped(false)} maxWidth="md">
        <DialogTitle>{t('dataset.skipped', { n: img.skipped.length })}</DialogTitle>
        <DialogContent>
          <Table size="small">
            <TableHead>
              <TableRow>
                <TableCell>{t('dataset.entry')}</TableCell>
                <TableCell>{t('dataset.reason')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {img.skipped.map((s) => (
                <TableRow key={s.entry}>
                  <TableCell sx={{ wordBreak: 'break-all' }}>{s.entry}</TableCell>
                  <TableCell>{s.reason}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setShowSkipped(false)}>{t('dataset.close')}</Button>
        </DialogActions>
      </Dialog>
    </Box>
  );
}
