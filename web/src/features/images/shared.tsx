import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import MenuItem from '@mui/material/MenuItem';
import Skeleton from '@mui/material/Skeleton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import i18n from 'i18next';
import type { CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import { formatInteger } from '../../lib/format';
import { useAuthedImage, type Metrics } from './api';
import en from './i18n/en.json';
import ja from './i18n/ja.json';

export const NS = 'images';
i18n.addResourceBundle('en', NS, en, true, true);
i18n.addResourceBundle('ja', NS, ja, true, true);

export const fmt = (v: unknown, digits = 3) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(digits) : '—');
export const pct = (v: number | null | undefined) => (typeof v === 'number' ? `${(v * 100).toFixed(1)} %` : '—');

export function AuthImage({ path, alt, size = 140, style }: { path: string | null; alt: string; size?: number; style?: CSSProperties }) {
  const url = useAuthedImage(path);
  if (!url) return <Skeleton variant="rectangular" width={size} height={size} />;
  return <img src={url} alt={alt} style={{ width: size, height: size, objectFit: 'contain', background: '#222', display: 'block', ...style }} />;
}

export function StateChip({ state }: { state: string }) {
  const { t } = useTranslation(NS);
  const color = state === 'done' ? 'success' : state === 'failed' ? 'error' : state === 'training' ? 'info' : 'default';
  return <Chip size="small" color={color} label={t(`state.${state}`, { defaultValue: state })} />;
}

const METRICS = ['accuracy', 'precision', 'recall', 'f1', 'roc_auc', 'miss_rate', 'over_detection_rate'] as const;

export function MetricsTable({ metrics }: { metrics: Metrics | null }) {
  const { t } = useTranslation(NS);
  if (!metrics) return null;
  const keys = METRICS.filter((k) => k in metrics);
  return (
    <Table size="small" aria-label={t('result.metrics')} sx={{ maxWidth: 420 }}>
      <TableBody>
        {keys.map((k) => (
          <TableRow key={k}>
            <TableCell component="th">{t(`metric.${k}`)}</TableCell>
            <TableCell align="right">{k.endsWith('_rate') ? pct(metrics[k]) : fmt(metrics[k])}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

export function ConfusionMatrix({ cm }: { cm?: { labels: string[]; matrix: number[][] } }) {
  const { t } = useTranslation(NS);
  if (!cm) return null;
  const max = Math.max(1, ...cm.matrix.flat());
  return (
    <Box sx={{ overflowX: 'auto' }}>
      <Table size="small" aria-label={t('result.confusion')} sx={{ width: 'auto' }}>
        <TableHead>
          <TableRow>
            <TableCell>
              {t('result.actual')} \ {t('result.predicted')}
            </TableCell>
            {cm.labels.map((l) => (
              <TableCell key={l} align="center">
                {l}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {cm.matrix.map((row, i) => (
            <TableRow key={cm.labels[i]}>
              <TableCell component="th">{cm.labels[i]}</TableCell>
              {row.map((v, j) => (
                <TableCell key={j} align="center" sx={{ bgcolor: `rgba(25,118,210,${(0.6 * v) / max})`, fontWeight: i === j ? 600 : 400 }}>
                  {v}
                </TableCell>
              ))}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Box>
  );
}

/** An image dataset's splits, in the order shown. */
export const SPLITS = ['train', 'validation', 'test'];

/** Counts per class and split with each class's total (the dataset page, the pre-processing page and its result). */
export function CountsTable({ classes, counts, label, mt }: { classes: string[]; counts: Record<string, Record<string, number>>; label: string; mt?: number }) {
  const { t } = useTranslation(NS);
  const splits = SPLITS.filter((s) => counts[s]);
  return (
    <Table size="small" aria-label={label} sx={{ width: 'auto', mt }}>
      <TableHead>
        <TableRow>
          <TableCell>{t('dataset.class')}</TableCell>
          {splits.map((s) => (
            <TableCell key={s} align="right">
              {t(`dataset.${s}`)}
            </TableCell>
          ))}
          <TableCell align="right">{t('dataset.total')}</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {classes.map((c) => (
          <TableRow key={c}>
            <TableCell component="th">{c || '—'}</TableCell>
            {splits.map((s) => (
              <TableCell key={s} align="right">
                {formatInteger(counts[s]?.[c] ?? 0)}
              </TableCell>
            ))}
            <TableCell align="right">{formatInteger(splits.reduce((a, s) => a + (counts[s]?.[c] ?? 0), 0))}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** A filter of the image pages: "All" (the empty value) first, then each option. */
export function FilterField({ label, value, options, labelOf = (v) => v, onChange, minWidth }: { label: string; value: string; options: string[]; labelOf?: (v: string) => string; onChange: (v: string) => void; minWidth: number }) {
  const { t } = useTranslation(NS);
  return (
    <TextField select size="small" label={label} value={value} onChange={(e) => onChange(e.target.value)} sx={{ minWidth }}>
      <MenuItem value="">{t('dataset.all')}</MenuItem>
      {options.map((o) => (
        <MenuItem key={o} value={o}>
          {labelOf(o)}
        </MenuItem>
      ))}
    </TextField>
  );
}

/** Choosing image files (or ZIPs of them) from this computer, and the names chosen. */
export function ImageFilesButton({ files, onChange, testId }: { files: File[]; onChange: (files: File[]) => void; testId: string }) {
  const { t } = useTranslation(NS);
  return (
    <>
      <Button variant="outlined" component="label">
        {t('result.choose')}
        <input hidden type="file" multiple accept=".jpg,.jpeg,.png,.bmp,.tif,.tiff,.zip" data-testid={testId} onChange={(e) => onChange(Array.from(e.target.files ?? []))} />
      </Button>
      <Typography variant="body2">{files.map((f) => f.name).join(', ')}</Typography>
    </>
  );
}
