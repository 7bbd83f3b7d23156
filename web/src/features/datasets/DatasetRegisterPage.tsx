import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import TextField from '@mui/material/TextField';
import { useQueryClient } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import { useServiceStatus } from '../../api/me';
import { DATA_TYPES, DATASET_TYPES, TRAINING_TYPES } from '../../api/types';
import PageHeader from '../../components/PageHeader';
import Section from '../../components/Section';
import { showSnackbar } from '../../lib/feedback';
import { formatMegabytes } from '../../lib/format';
import { datasetKeys, registerDataset, type RegisterFields } from './api';
import { guessDatetimeColumn, hasAcceptedExtension, isZip } from './csvHeader';
import { detailsPath } from './DatasetListPage';
import EnumSelect from './EnumSelect';
import { dataTypeLabel, trainingTypeLabel, typeLabel } from './labels';
import { FileSection, TimeSeriesSection, UploadProgress, useChosenFile } from './RegisterSections';

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
  const chosen = useChosenFile((s) => setDatetimeColumn((cur) => cur || guessDatetimeColumn(s.columns)));
  const { file, sniff, notText } = chosen;
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
  const clearFile = () => {
    chosen.clear();
    setDatetimeColumn('');
  };
  const chooseFile = (f: File) => {
    setDatetimeColumn('');
    chosen.choose(f);
    if (!name.trim()) setName(f.name.replace(/\.[^.]+$/, ''));
    // images: an image training type is the natural choice
    if (isZip(f.name) && trainingType !== 'analysis' && trainingType !== 'classification') changeTrainingType('analysis');
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

  return (
    <Box component="form" onSubmit={submit} noValidate sx={{ maxWidth: 980 }}>
      <PageHeader title={t('pages.datasetRegister')} subtitle={t('dataset.register.subtitle')} />
      <FileSection chosen={chosen} onFile={chooseFile} onRemove={clearFile} error={fileError} maxMb={maxMb} busy={busy} />
      <Section roomy title={t('dataset.register.infoSection')}>
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
          <EnumSelect label={t('dataset.fields.trainingType')} name="training_type" value={trainingType} options={TRAINING_TYPES} labelOf={(v) => trainingTypeLabel(t, v)} onChange={changeTrainingType} required />
          <EnumSelect label={t('dataset.fields.dataType')} name="data_type" value={dataType} options={DATA_TYPES} labelOf={(v) => dataTypeLabel(t, v)} onChange={setDataType} />
          <EnumSelect label={t('dataset.fields.type')} name="type" value={type} options={DATASET_TYPES} labelOf={(v) => typeLabel(t, v)} onChange={setType} />
          <Box />
          <Box sx={{ gridColumn: '1 / -1' }}>
            <TextField label={t('dataset.fields.comment')} value={comment} onChange={(e) => setComment(e.target.value)} fullWidth multiline minRows={2} disabled={busy} />
          </Box>
        </Box>
      </Section>
      <TimeSeriesSection
        on={timeSeries}
        onToggle={setTimeSeries}
        column={datetimeColumn}
        onColumn={setDatetimeColumn}
        columns={sniff?.columns ?? []}
        hasFile={!!file}
        error={datetimeError}
        busy={busy}
      />
      {phase !== 'idle' && <UploadProgress phase={phase} percent={Math.round(progress * 100)} />}
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
