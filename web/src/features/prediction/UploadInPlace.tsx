import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Typography from '@mui/material/Typography';
import UploadIcon from '@mui/icons-material/UploadFile';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/errors';
import type { Dataset } from '../../api/types';
import { isTableDataset, registerDataset } from '../datasets/api';
import { ACCEPTED_EXTENSIONS, hasAcceptedExtension } from '../datasets/csvHeader';
import { NS } from './PredictionListPage';

/** The dataset kind (SPEC §3 'type') an inference file of this project type is registered as. */
export function datasetTypeFor(projectType: string): 'supervised' | 'unsupervised' | 'softsensor' {
  if (projectType === 'soft_sensor') return 'softsensor';
  if (['time_series_anomaly_detection_unsupervised', 'clustering', 'dimensional_compression'].includes(projectType)) return 'unsupervised';
  return 'supervised';
}

/** A file's name without its extension: the new dataset's name. */
export const baseName = (file: string) => file.replace(/\.[^.]+$/, '').trim() || file;

/**
 * "Predict on a file" (issue 33): a file chosen here is registered at once as an inference dataset of the project's
 * type through the ordinary dataset upload (POST /api/dataset/register), then chosen in the wizard.
 */
export default function UploadInPlace({ projectType, onRegistered }: { projectType: string; onRegistered: (d: Dataset) => void }) {
  const { t } = useTranslation(NS);
  const qc = useQueryClient();
  const [progress, setProgress] = useState<number | null>(null);
  const [processing, setProcessing] = useState(false);
  const [error, setError] = useState('');
  const [done, setDone] = useState('');

  const upload = async (file: File) => {
    setError('');
    setDone('');
    if (!hasAcceptedExtension(file.name)) return setError(t('wizard.upload.badType', { types: ACCEPTED_EXTENSIONS.join(', ') }));
    setProgress(0);
    try {
      const d = await registerDataset(
        { name: baseName(file.name), category: '', training_type: projectType, data_type: 'inference_data', type: datasetTypeFor(projectType), comment: t('wizard.upload.comment'), datetime_column: '' },
        file,
        { onProgress: setProgress, onUploaded: () => setProcessing(true), silent: true },
      );
      await qc.invalidateQueries({ queryKey: ['datasets'] });
      setDone(t('wizard.upload.done', { name: d.name }));
      // a prediction's upload is a table (CSV): its answer is a table dataset
      if (isTableDataset(d)) onRegistered(d);
    } catch (err) {
      setError(err instanceof ApiError ? (err.fieldErrors[0]?.message ?? err.serverMessage ?? t('wizard.upload.failed')) : t('wizard.upload.failed'));
    } finally {
      setProgress(null);
      setProcessing(false);
    }
  };

  const busy = progress !== null;
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 1 }} data-testid="predict-upload">
      <Typography variant="body2" color="text.secondary">
        {t('wizard.upload.intro')}
      </Typography>
      <Box>
        <Button component="label" variant="outlined" startIcon={<UploadIcon />} disabled={busy}>
          {t('wizard.upload.choose')}
          <input
            hidden
            type="file"
            accept={ACCEPTED_EXTENSIONS.join(',')}
            data-testid="predict-upload-file"
            onChange={(e) => {
              const f = e.target.files?.[0];
              e.target.value = '';
              if (f) void upload(f);
            }}
          />
        </Button>
      </Box>
      {busy && (
        <Box>
          <LinearProgress variant={processing ? 'indeterminate' : 'determinate'} value={(progress ?? 0) * 100} />
          <Typography variant="caption" color="text.secondary">
            {processing ? t('wizard.upload.processing') : t('wizard.upload.sending', { pct: Math.round((progress ?? 0) * 100) })}
          </Typography>
        </Box>
      )}
      {error && <Alert severity="error">{error}</Alert>}
      {done && <Alert severity="success">{done}</Alert>}
    </Box>
  );
}
