import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiBlob } from '../../api/client';
import { accountAnswer, http } from '../../api/typed';
import { isOneOf, type Answer } from '../../api/types';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { formatDateTime } from '../../lib/format';
import { useProfile } from './api';

/** One identity review, as the server declares it. */
type Review = Answer<'/account/api/admin/identity', 'get'>['items'][number];
/** The list's filter: the states a review can be in, or all. */
const STATES = ['under_review', 'rejected', 'done', 'all'] as const;

export const IDENTITY_COLORS = { not_done: 'default', under_review: 'info', done: 'success', rejected: 'error' } as const;
const IDENTITY_STATES = ['not_done', 'under_review', 'done', 'rejected'] as const satisfies readonly (keyof typeof IDENTITY_COLORS)[];

/** An ID image fetched with the bearer (they are never public files). */
function IdImage({ id, side, label }: { id: string; side: 'front' | 'back'; label: string }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let revoke: string | null = null;
    apiBlob(`/account/api/admin/identity/${id}/${side}`, `${side}.jpg`, { silent: true }).then(({ blob }) => {
      revoke = URL.createObjectURL(blob);
      setUrl(revoke);
    }, () => setUrl(null));
    return () => {
      if (revoke) URL.revokeObjectURL(revoke);
    };
  }, [id, side]);
  return (
    <Box component="figure" sx={{ m: 0 }}>
      <Box sx={{ border: 1, borderColor: 'divider', borderRadius: 1, height: 180, display: 'flex', alignItems: 'center', justifyContent: 'center', bgcolor: 'background.default', overflow: 'hidden' }}>
        {url ? <img src={url} alt={label} style={{ maxWidth: '100%', maxHeight: '100%' }} /> : null}
      </Box>
      <Typography component="figcaption" variant="caption" color="text.secondary">
        {label}
      </Typography>
    </Box>
  );
}

/** The platform administrators' review of identity documents (MITATE_PLATFORM_ADMINS). */
export default function AdminIdentityPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const { data: profile, isPending } = useProfile();
  const [state, setState] = useState('under_review');
  const [rejecting, setRejecting] = useState<Review | null>(null);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const list = useQuery({
    queryKey: ['account', 'admin', 'identity', state],
    queryFn: () => accountAnswer((o) => http.GET('/account/api/admin/identity', { params: { query: { state: isOneOf(STATES, state) ? state : undefined } }, ...o })),
    enabled: !!profile?.platform_admin,
  });
  if (isPending) return <PageLoading />;
  if (!profile?.platform_admin) return <Alert severity="warning">{t('adminIdentity.notAllowed')}</Alert>;
  const review = async (r: Review, decision: 'approve' | 'reject', why?: string) => {
    setBusy(true);
    try {
      await accountAnswer((o) => http.POST('/account/api/admin/identity/{id}/review', { params: { path: { id: r.id } }, body: { decision, reason: why }, ...o }), {
        success: decision === 'approve' ? t('adminIdentity.approved') : t('adminIdentity.rejected'),
      });
      setRejecting(null);
      setReason('');
      await queryClient.invalidateQueries({ queryKey: ['account', 'admin', 'identity'] });
    } catch {
      /* shown by the account client */
    } finally {
      setBusy(false);
    }
  };
  const items = list.data?.items ?? [];
  return (
    <Box sx={{ maxWidth: 1100 }}>
      <PageHeader
        title={t('adminIdentity.title')}
        subtitle={t('adminIdentity.subtitle')}
        actions={
          <TextField select label={t('adminIdentity.filter')} value={state} onChange={(e) => setState(e.target.value)} sx={{ minWidth: 200 }}>
            {STATES.map((s) => (
              <MenuItem key={s} value={s}>
                {t(`identity.states.${s}`)}
              </MenuItem>
            ))}
          </TextField>
        }
      />
      {list.isFetching && !list.data && <PageLoading />}
      {list.data && items.length === 0 && <Alert severity="info">{t('adminIdentity.empty')}</Alert>}
      <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
        {items.map((r) => (
          <Paper key={r.id} variant="outlined" sx={{ p: 2 }} aria-label={r.email}>
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1.5, flexWrap: 'wrap' }}>
              <Typography variant="subtitle1" sx={{ fontWeight: 600 }}>
                {`${r.first_name} ${r.last_name}`}
              </Typography>
              <Typography color="text.secondary">{r.email}</Typography>
              <Typography color="text.secondary">· {r.organisation_name}</Typography>
              <Box sx={{ flex: 1 }} />
              <Chip size="small" color={isOneOf(IDENTITY_STATES, r.state) ? IDENTITY_COLORS[r.state] : 'default'} label={t(`identity.states.${r.state}`)} />
              <Typography variant="body2" color="text.secondary">
                {t('identity.submittedAt', { date: formatDateTime(r.submitted_at) })}
              </Typography>
            </Box>
            <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 2 }}>
              <IdImage id={r.id} side="front" label={t('identity.front')} />
              <IdImage id={r.id} side="back" label={t('identity.back')} />
            </Box>
            {r.reason && (
              <Alert severity="warning" sx={{ mt: 1.5 }}>
                {t('identity.reason', { reason: r.reason })}
              </Alert>
            )}
            {r.state === 'under_review' && (
              <Box sx={{ display: 'flex', gap: 1, mt: 1.5, justifyContent: 'flex-end' }}>
                <Button color="error" variant="outlined" onClick={() => setRejecting(r)} disabled={busy}>
                  {t('adminIdentity.reject')}
                </Button>
                <Button variant="contained" onClick={() => void review(r, 'approve')} disabled={busy}>
                  {t('adminIdentity.approve')}
                </Button>
              </Box>
            )}
          </Paper>
        ))}
      </Box>
      <Dialog open={!!rejecting} onClose={() => setRejecting(null)} maxWidth="sm" fullWidth>
        <DialogTitle>{t('adminIdentity.rejectTitle')}</DialogTitle>
        <DialogContent>
          <TextField label={t('adminIdentity.reason')} value={reason} onChange={(e) => setReason(e.target.value)} required fullWidth multiline minRows={2} sx={{ mt: 1 }} autoFocus />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setRejecting(null)}>{t('common.cancel')}</Button>
          <Button color="error" variant="contained" disabled={busy || !reason.trim()} onClick={() => rejecting && void review(rejecting, 'reject', reason.trim())}>
            {t('adminIdentity.reject')}
          </Button>
        </DialogActions>
      </Dialog>
    </Box>
  );
}
