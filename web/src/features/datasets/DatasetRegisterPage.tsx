import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
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
import { useQueryClient } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import { useServiceStatus } from '../../api/me';
import { DATA_TYPES, DATASET_TYPES, TRAINING_TYPES } from '../../api/types';
import PageHeader from '../../components/PageHeader';
import { showSnackbar } from '../../lib/feedback';
import { formatBytes, formatMegabytes } from '../../lib/format';
import { datasetKeys, registerDataset, type RegisterFields } from './api';
import { type BinaryKind, guessDatetimeColumn, hasAcceptedExtension, isZip, NotTextError, sniffHeader, type HeaderSniff } from './csvHeader';
import { detailsPath } from './DatasetListPage';
import EnumSelect from './EnumSelect';
import FileDropZone from './FileDropZone';
import { dataTypeLabel, delimiterLabel, trainingTypeLabel, typeLabel } from './labels';

type Phase = 'idle' | 'uploading' | 'processing';

const TYPE_FOR_TRAINING: Record<string, string> = {
  regression: 'supervised',
  classification: 'supervised',
  analysis: 'supervised',
  discriminant_analysis: 'supervised',
  time_series_anomaly_detection_supervised: 'supervised',
  time_series_anomaly_detection_unsupervised: 'unsupervised',
  dimensional_compression: 'unsupervised',
  clustering: 'unsupervised',
  soft_sensor: 'softsensor',
};
const isTimeSeriesTraining = (v: string) => v.startsWith('time_series') || v === 'soft_sensor';

/** The file-size check of SPEC §5 ('File size must be less than _size_.'); null when the file fits. */
export function fileSizeProblem(file: Pick<File, 'size'>, maxMb: number | undefined, t: TFunction): string | null {
  if (!maxMb || maxMb <= 0) return null;
  return file.size > maxMb * 1024 * 1024 ? t('validation.fileTooLarge', { size: formatMegabytes(maxMb) }) : null;
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper variant="outlined" sx={{ p: 2.5, mb: 2 }}>
      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 2 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}

export default function DatasetRegisterPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const status = useServiceStatus();
  const maxMb = status.data?.max_upload_mb;

  const [name, setName] = useState('');
  const [category, setCategory] = useState('');
  const [trainingType, setTrainingType] = useState<string>('regression');
  const [dataType, setDataType] = useState<string>('training_data');
  const [type, setType] = useState<string>('supervised');
  const [comment, setComment] = useState('');
  const [timeSeries, setTimeSeries] = useState(false);
  const [datetimeColumn, setDatetimeColumn] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [sniff, setSniff] = useState<HeaderSniff | null>(null);
  const [sniffFailed, setSniffFailed] = useState(false);
  const [notText, setNotText] = useState<BinaryKind | null>(null);
  const [submitted, setSubmitted] = useState(false);
  const [phase, setPhase] = useState<Phase>('idle');
  const [progress, setProgress] = useState(0);
  const abort = useRef<AbortController | null>(null);

  const busy = phase !== 'idle';

  useEffect(() => {
    if (!busy) return undefined;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [busy]);

  // the details page (its own chunk, with the data grid) is where a registration lands: fetched now, so the new URL
  // does not keep this form on screen while that chunk loads
  useEffect(() => {
    void import('./DatasetDetailsPage');
  }, []);
  const sniffing = useRef<File | null>(null);
  const clearFile = () => {
    sniffing.current = null;
    setFile(null);
    setSniff(null);
    setSniffFailed(false);
    setNotText(null);
    setDatetimeColumn('');
  };
  const chooseFile = (f: File) => {
    clearFile();
    setFile(f);
    sniffing.current = f;
    if (!name.trim()) setName(f.name.replace(/\.[^.]+$/, ''));
    if (isZip(f.name)) {
      // images: the server unpacks and checks the ZIP; an image training type is the natural choice
      if (trainingType !== 'analysis' && trainingType !== 'classification') changeTrainingType('analysis');
      return;
    }
    sniffHeader(f)
      .then((s) => {
        if (sniffing.current !== f) return; // another file was chosen meanwhile
        setSniff(s);
        setDatetimeColumn((cur) => cur || guessDatetimeColumn(s.columns));
      })
      .catch((e) => {
        if (sniffing.current !== f) return;
        // not text (a picture renamed .csv...): said now, as the server would after the upload
        if (e instanceof NotTextError) setNotText(e.kind);
        else setSniffFailed(true);
      });
  };

  const changeTrainingType = (v: string) => {
    setTrainingType(v);
    if (TYPE_FOR_TRAINING[v]) setType(TYPE_FOR_TRAINING[v]);
    if (isTimeSeriesTraining(v)) setTimeSeries(true);
  };

  const sizeError = file ? fileSizeProblem(file, maxMb, t) : null;
  const extensionError = file && !hasAcceptedExtension(file.name) ? t('dataset.register.wrongType') : null;
  const notTextError = notText ? t('dataset.register.notText', { kind: t(`dataset.register.binaryKinds.${notText}`) }) : null;
  const fileError = sizeError ?? extensionError ?? notTextError ?? (submitted && !file ? t('dataset.register.fileRequired') : null);
  const nameError = submitted && !name.trim() ? t('validation.required') : null;
  const datetimeError = submitted && timeSeries && !datetimeColumn ? t('dataset.register.datetimeRequired') : null;
  const columns = sniff?.columns ?? [];

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (!file || sizeError || extensionError || notText || !name.trim() || (timeSeries && !datetimeColumn)) return;
    const fields: RegisterFields = {
      name: name.trim(),
      category: category.trim(),
      training_type: trainingType,
      data_type: dataType,
      type,
      comment,
      datetime_column: timeSeries ? datetimeColumn : '',
    };
    abort.current = new AbortController();
    setProgress(0);
    setPhase('uploading');
    try {
      const dataset = await registerDataset(fields, file, {
        onProgress: setProgress,
        onUploaded: () => setPhase('processing'),
        signal: abort.current.signal,
      });
      showSnackbar(t('dataset.registered', { name: dataset?.name ?? fields.name }));
      // straight to the new dataset, at the top of its page: the lists refresh behind it (awaiting them kept this
      // form on screen, 'Processing…', for a second or two after the dataset existed)
      void queryClient.invalidateQueries({ queryKey: datasetKeys.all });
      window.scrollTo?.(0, 0);
      navigate(detailsPath({ id: dataset.id, data_type: dataset.data_type || dataType }));
    } catch {
      // The message dialog already explains the failure (SPEC §8); let the user correct and retry.
      setPhase('idle');
    }
  };

  const percent = Math.round(progress * 100);

  return (
    <Box component="form" onSubmit={submit} noValidate sx={{ maxWidth: 980 }}>
      <PageHeader title={t('pages.datasetRegister')} subtitle={t('dataset.register.subtitle')} />

      <Section title={t('dataset.register.fileSection')}>
        {!file ? (
          <FileDropZone onFile={chooseFile} disabled={busy} error={!!fileError} />
        ) : (
          <Box>
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, p: 1.5, border: 1, borderColor: fileError ? 'error.main' : 'divider', borderRadius: 1 }}>
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
                  <IconButton onClick={clearFile} disabled={busy} aria-label={t('dataset.register.removeFile')}>
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
        {fileError && (
          <Typography color="error" variant="body2" sx={{ mt: 1 }} role="alert">
            {fileError}
          </Typography>
        )}
        {maxMb ? (
          <Typography variant="caption" color="text.secondary" sx={{ display: 'block', mt: 1 }}>
            {t('dataset.register.maxSize', { size: formatMegabytes(maxMb) })}
          </Typography>
        ) : null}
      </Section>

      <Section title={t('dataset.register.infoSection')}>
        <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, gap: 2 }}>
          <TextField
            label={t('dataset.fields.name')}
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            error={!!nameError}
            helperText={nameError}
            disabled={busy}
            slotProps={{ htmlInput: { maxLength: 200 } }}
          />
          <TextField label={t('dataset.fields.category')} value={category} onChange={(e) => setCategory(e.target.value)} disabled={busy} />
          <EnumSelect
            label={t('dataset.fields.trainingType')}
            name="training_type"
            value={trainingType}
            options={TRAINING_TYPES}
            labelOf={(v) => trainingTypeLabel(t, v)}
            onChange={changeTrainingType}
            required
          />
          <EnumSelect label={t('dataset.fields.dataType')} name="data_type" value={dataType} options={DATA_TYPES} labelOf={(v) => dataTypeLabel(t, v)} onChange={setDataType} />
          <EnumSelect label={t('dataset.fields.type')} name="type" value={type} options={DATASET_TYPES} labelOf={(v) => typeLabel(t, v)} onChange={setType} />
          <Box />
          <Box sx={{ gridColumn: '1 / -1' }}>
            <TextField label={t('dataset.fields.comment')} value={comment} onChange={(e) => setComment(e.target.value)} fullWidth multiline minRows={2} disabled={busy} />
          </Box>
        </Box>
      </Section>

      <Section title={t('dataset.register.timeSeriesSection')}>
        <FormControlLabel
          control={<Switch checked={timeSeries} onChange={(e) => setTimeSeries(e.target.checked)} disabled={busy} />}
          label={t('dataset.register.timeSeries')}
        />
        <Typography variant="body2" color="text.secondary" sx={{ mb: timeSeries ? 2 : 0 }}>
          {t('dataset.register.timeSeriesHint')}
        </Typography>
        {timeSeries && (
          <TextField
            select
            label={t('dataset.register.datetimeColumn')}
            value={columns.includes(datetimeColumn) ? datetimeColumn : ''}
            onChange={(e) => setDatetimeColumn(e.target.value)}
            required
            error={!!datetimeError}
            helperText={datetimeError ?? (!file ? t('dataset.register.chooseFileFirst') : columns.length === 0 ? t('dataset.register.noColumns') : undefined)}
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

      {busy && (
        <Paper variant="outlined" sx={{ p: 2.5, mb: 2 }} aria-live="polite">
          <Box sx={{ display: 'flex', justifyContent: 'space-between', mb: 1 }}>
            <Typography sx={{ fontWeight: 500 }}>
              {phase === 'uploading' ? t('dataset.register.uploading') : t('dataset.register.processing')}
            </Typography>
            {phase === 'uploading' && <Typography color="text.secondary">{percent}%</Typography>}
          </Box>
          <LinearProgress
            variant={phase === 'uploading' ? 'determinate' : 'indeterminate'}
            value={percent}
            aria-label={phase === 'uploading' ? t('dataset.register.uploading') : t('dataset.register.processing')}
          />
          {phase === 'processing' && (
            <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
              {t('dataset.register.processingHint')}
            </Typography>
          )}
        </Paper>
      )}

      <Box sx={{ display: 'flex', gap: 1, justifyContent: 'flex-end' }}>
        {phase === 'uploading' ? (
          <Button onClick={() => abort.current?.abort()}>{t('dataset.register.cancelUpload')}</Button>
        ) : (
          <Button component={RouterLink} to="/dataset" disabled={busy}>
            {t('common.cancel')}
          </Button>
        )}
        <Button type="submit" variant="contained" disabled={busy}>
          {t('dataset.register.submit')}
        </Button>
      </Box>
    </Box>
  );
}
