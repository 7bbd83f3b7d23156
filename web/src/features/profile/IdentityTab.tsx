import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Typography from '@mui/material/Typography';
import UploadIcon from '@mui/icons-material/UploadFile';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/errors';
import LinkAlert from '../../components/LinkAlert';
import { formatDateTime } from '../../lib/format';
import { showSnackbar } from '../../lib/feedback';
import { uploadIdentity, type Profile } from '../account/api';
import { IDENTITY_COLORS } from '../account/AdminIdentityPage';

export const ID_MAX_MB = 10;
const TYPES = ['image/jpeg', 'image/png'];

/** 'select an image' / 'File size must be less than _size_.' before anything is sent. */
export function idFileProblem(f: File | null, t: (k: string, o?: Record<string, string>) => string): string | null {
  if (!f) return t('identity.selectImage');
  if (!TYPES.includes(f.type)) return t('identity.notImage');
  if (f.size > ID_MAX_MB * 1024 * 1024) return t('validation.fileTooLarge', { size: `${ID_MAX_MB} MB` });
  return null;
}

function Picker({ label, file, onFile, error }: { label: string; file: File | null; onFile: (f: File | null) => void; error?: string | null }) {
  const { t } = useTranslation();
  const [preview, setPreview] = useState<string | null>(null);
  useEffect(() => {
    if (!file || !TYPES.includes(file.type)) return setPreview(null);
    const url = URL.createObjectURL(file);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);
  return (
    <Box>
      <Typography variant="subtitle2" sx={{ mb: 1 }}>
        {label} *
      </Typography>
      <Box sx={{ border: 1, borderStyle: 'dashed', borderColor: error ? 'error.main' : 'divider', borderRadius: 1, height: 170, display: 'flex', alignItems: 'center', justifyContent: 'center', overflow: 'hidden', bgcolor: 'background.default' }}>
        {preview ? <img src={preview} alt={label} style={{ maxWidth: '100%', maxHeight: '100%' }} /> : <Typography color="text.secondary">{t('identity.noFile')}</Typography>}
      </Box>
      <Button component="label" startIcon={<UploadIcon />} sx={{ mt: 1 }}>
        {t('identity.choose', { side: label })}
        <input hidden type="file" accept="image/jpeg,image/png" aria-label={label} onChange={(e) => onFile(e.target.files?.[0] ?? null)} />
      </Button>
      {file && (
        <Typography variant="caption" color="text.secondary" sx={{ display: 'block' }}>
          {file.name}
        </Typography>
      )}
      {error && (
        <Typography variant="caption" color="error" sx={{ display: 'block' }}>
          {error}
        </Typography>
      )}
    </Box>
  );
}

/** SPEC §4 identity verification: not done → under review → done, or rejected with a reason (upload again). */
export default function IdentityTab({ profile }: { profile: Profile }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [front, setFront] = useState<File | null>(null);
  const [back, setBack] = useState<File | null>(null);
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = profile.identity;
  const tt = (k: string, o?: Record<string, string>) => t(k, o ?? {});
  const canUpload = id.state === 'not_done' || id.state === 'rejected';
  const submit = async () => {
    setSubmitted(true);
    if (idFileProblem(front, tt) || idFileProblem(back, tt)) return;
    setBusy(true);
    setError(null);
    try {
      await uploadIdentity(front!, back!);
      showSnackbar(t('identity.sent'));
      await queryClient.invalidateQueries({ queryKey: ['account'] });
    } catch (err) {
      setError(err instanceof ApiError ? (err.fieldErrors[0]?.message ?? err.serverMessage ?? t('accountClient.unknown')) : t('accountClient.unknown'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 760 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5 }}>
        <Typography>{t('identity.status')}</Typography>
        <Chip color={IDENTITY_COLORS[id.state]} label={t(`identity.states.${id.state}`)} />
        {id.submitted_at && (
          <Typography variant="body2" color="text.secondary">
            {t('identity.submittedAt', { date: formatDateTime(id.submitted_at) })}
          </Typography>
        )}
      </Box>
      {id.state === 'not_done' && <Alert severity="warning">{t('identity.paymentBlocked')}</Alert>}
      {id.state === 'under_review' &&
        (profile.platform_admin ? (
          <LinkAlert severity="info" to="/admin/identity" linkLabel={t('identity.reviewNow')}>
            {t('identity.underReviewSelf')}
          </LinkAlert>
        ) : (
          <Alert severity="info">{t('identity.underReview')}</Alert>
        ))}
      {id.state === 'done' && <Alert severity="success">{t('identity.done')}</Alert>}
      {id.state === 'rejected' && <Alert severity="error">{t('identity.rejected', { reason: id.reason ?? '' })}</Alert>}
      {canUpload && (
        <>
          <Typography color="text.secondary">{t('identity.intro', { size: `${ID_MAX_MB} MB` })}</Typography>
          {error && <Alert severity="error">{error}</Alert>}
          <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 2 }}>
            <Picker label={t('identity.front')} file={front} onFile={setFront} error={submitted ? idFileProblem(front, tt) : null} />
            <Picker label={t('identity.back')} file={back} onFile={setBack} error={submitted ? idFileProblem(back, tt) : null} />
          </Box>
          <Box>
            <Button variant="contained" onClick={() => void submit()} disabled={busy}>
              {t('identity.submit')}
            </Button>
          </Box>
        </>
      )}
    </Box>
  );
}
