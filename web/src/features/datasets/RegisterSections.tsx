import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import FormControlLabel from '@mui/material/FormControlLabel';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import CloseIcon from '@mui/icons-material/Close';
import InsertDriveFileOutlinedIcon from '@mui/icons-material/InsertDriveFileOutlined';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import Section from '../../components/Section';
import { formatBytes, formatMegabytes } from '../../lib/format';
import { type BinaryKind, isZip, NotTextError, sniffHeader, type HeaderSniff } from './csvHeader';
import FileDropZone from './FileDropZone';
import { delimiterLabel } from './labels';

/** The chosen file and what its header says (columns, delimiter, encoding), read in the browser before the upload. */
export function useChosenFile(onHeader: (s: HeaderSniff) => void) {
  const [file, setFile] = useState<File | null>(null);
  const [sniff, setSniff] = useState<HeaderSniff | null>(null);
  const [sniffFailed, setSniffFailed] = useState(false);
  const [notText, setNotText] = useState<BinaryKind | null>(null);
  const sniffing = useRef<File | null>(null);
  const clear = () => {
    sniffing.current = null;
    setFile(null);
    setSniff(null);
    setSniffFailed(false);
    setNotText(null);
  };
  const choose = (f: File) => {
    clear();
    setFile(f);
    sniffing.current = f;
    if (isZip(f.name)) return; // images: the server unpacks and checks the ZIP
    sniffHeader(f)
      .then((s) => {
        if (sniffing.current !== f) return; // another file was chosen meanwhile
        setSniff(s);
        onHeader(s);
      })
      .catch((e) => {
        if (sniffing.current !== f) return;
        // not text (a picture renamed .csv...): said now, as the server would after the upload
        if (e instanceof NotTextError) setNotText(e.kind);
        else setSniffFailed(true);
      });
  };
  return { file, sniff, sniffFailed, notText, clear, choose };
}

interface FileSectionProps {
  chosen: ReturnType<typeof useChosenFile>;
  onFile: (f: File) => void;
  onRemove: () => void;
  error: string | null;
  maxMb: number | undefined;
  busy: boolean;
}

/** The file: a drop zone, or the chosen file with its header's columns; what is wrong with it; the size limit. */
export function FileSection({ chosen, onFile, onRemove, error, maxMb, busy }: FileSectionProps) {
  const { t } = useTranslation();
  const { file, sniff, sniffFailed } = chosen;
  const columns = sniff?.columns ?? [];
  return (
    <Section roomy title={t('dataset.register.fileSection')}>
      {!file ? (
        <FileDropZone onFile={onFile} disabled={busy} error={!!error} />
      ) : (
        <Box>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, p: 1.5, border: 1, borderColor: error ? 'error.main' : 'divider', borderRadius: 1 }}>
            <InsertDriveFileOutlinedIcon color="primary" />
            <Box sx={{ flex: 1, minWidth: 0 }}>
              <Typography noWrap sx={{ fontWeight: 500 }}>
                {file.name}
              </Typography>
              <Typography variant="body2" color="text.secondary">
                {formatBytes(file.size)}
                {sniff &&
                  ` · ${t('dataset.register.detected', {
                    count: sniff.columns.length,
                    delimiter: delimiterLabel(t, sniff.delimiter),
                    encoding: sniff.encoding === 'shift_jis' ? 'Shift_JIS' : 'UTF-8',
                  })}`}
              </Typography>
            </Box>
            <Tooltip title={t('dataset.register.removeFile')}>
              <span>
                <IconButton onClick={onRemove} disabled={busy} aria-label={t('dataset.register.removeFile')}>
                  <CloseIcon />
                </IconButton>
              </span>
            </Tooltip>
          </Box>
          {columns.length > 0 && (
            <Box sx={{ mt: 1.5 }}>
              <Typography variant="caption" color="text.secondary">
                {t('dataset.register.headerColumns')}
              </Typography>
              <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5, mt: 0.5, maxHeight: 96, overflow: 'auto' }} data-testid="header-columns">
                {columns.map((c, i) => (
                  <Chip key={`${c}-${i}`} label={c || t('dataset.register.unnamed')} size="small" variant="outlined" />
                ))}
              </Box>
            </Box>
          )}
          {sniffFailed && (
            <Alert severity="warning" sx={{ mt: 1.5 }}>
              {t('dataset.register.headerUnreadable')}
            </Alert>
          )}
        </Box>
      )}
      {error && (
        <Typography color="error" variant="body2" sx={{ mt: 1 }} role="alert">
          {error}
        </Typography>
      )}
      {maxMb ? (
        <Typography variant="caption" color="text.secondary" sx={{ display: 'block', mt: 1 }}>
          {t('dataset.register.maxSize', { size: formatMegabytes(maxMb) })}
        </Typography>
      ) : null}
    </Section>
  );
}

interface TimeSeriesProps {
  on: boolean;
  onToggle: (on: boolean) => void;
  column: string;
  onColumn: (c: string) => void;
  columns: string[];
  hasFile: boolean;
  error: string | null;
  busy: boolean;
}

/** Whether the data is a time series, and then its date-time column (one of the header's). */
export function TimeSeriesSection({ on, onToggle, column, onColumn, columns, hasFile, error, busy }: TimeSeriesProps) {
  const { t } = useTranslation();
  return (
    <Section roomy title={t('dataset.register.timeSeriesSection')}>
      <FormControlLabel control={<Switch checked={on} onChange={(e) => onToggle(e.target.checked)} disabled={busy} />} label={t('dataset.register.timeSeries')} />
      <Typography variant="body2" color="text.secondary" sx={{ mb: on ? 2 : 0 }}>
        {t('dataset.register.timeSeriesHint')}
      </Typography>
      {on && (
        <TextField
          select
          label={t('dataset.register.datetimeColumn')}
          value={columns.includes(column) ? column : ''}
          onChange={(e) => onColumn(e.target.value)}
          required
          error={!!error}
          helperText={error ?? (!hasFile ? t('dataset.register.chooseFileFirst') : columns.length === 0 ? t('dataset.register.noColumns') : undefined)}
          disabled={busy || columns.length === 0}
          sx={{ minWidth: 320 }}
          slotProps={{ select: { MenuProps: { slotProps: { paper: { sx: { maxHeight: 360 } } } } } }}
        >
          {columns.map((c, i) => (
            <MenuItem key={`${c}-${i}`} value={c}>
              {c || t('dataset.register.unnamed')}
            </MenuItem>
          ))}
        </TextField>
      )}
    </Section>
  );
}

/** The upload's progress, then 'Processing…' while the server reads the file. */
export function UploadProgress({ phase, percent }: { phase: 'uploading' | 'processing'; percent: number }) {
  const { t } = useTranslation();
  const label = phase === 'uploading' ? t('dataset.register.uploading') : t('dataset.register.processing');
  return (
    <Paper variant="outlined" sx={{ p: 2.5, mb: 2 }} aria-live="polite">
      <Box sx={{ display: 'flex', justifyContent: 'space-between', mb: 1 }}>
        <Typography sx={{ fontWeight: 500 }}>{label}</Typography>
        {phase === 'uploading' && <Typography color="text.secondary">{percent}%</Typography>}
      </Box>
      <LinearProgress variant={phase === 'uploading' ? 'determinate' : 'indeterminate'} value={percent} aria-label={label} />
      {phase === 'processing' && (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
          {t('dataset.register.processingHint')}
        </Typography>
      )}
    </Paper>
  );
}
