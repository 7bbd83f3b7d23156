import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import { showSnackbar } from '../../lib/feedback';
import { formatDateTime } from '../../lib/format';
import { type PlatformProject, review, type Status, STATUSES, useReviewQueue } from './api';
import { StatusChip, useConfirm } from './common';

/** Platform administrators (MITATE_PLATFORM_ADMINS) approve or reject submitted APIs across organisations. */
export default function AdminReviewPage() {
  const { t, ask, dialog } = useConfirm();
  usePageTitle(t('admin.title'));
  const qc = useQueryClient();
  const [status, setStatus] = useState<Status | 'all'>('under_review');
  const queue = useReviewQueue(status);
  const [rejecting, setRejecting] = useState<PlatformProject | null>(null);
  const [reason, setReason] = useState('');
  const refresh = () => qc.invalidateQueries({ queryKey: ['platform'] });
  return (
    <>
      <PageHeader title={t('admin.title')} subtitle={t('admin.subtitle')} />
      <TextField select size="small" label={t('filter')} value={status} onChange={(e) => setStatus(e.target.value as Status | 'all')} sx={{ mb: 2, minWidth: 200 }}>
        <MenuItem value="all">{t('all')}</MenuItem>
        {STATUSES.map((s) => (
          <MenuItem key={s} value={s}>
            {t(`status.${s}`)}
          </MenuItem>
        ))}
      </TextField>
      <Paper variant="outlined">
        {!queue.data?.items.length ? (
          <Typography sx={{ p: 3 }} color="text.secondary">
            {t('admin.none')}
          </Typography>
        ) : (
          <Table size="small" aria-label={t('admin.title')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('col.name')}</TableCell>
                <TableCell>{t('admin.organisation')}</TableCell>
                <TableCell>{t('admin.identity')}</TableCell>
                <TableCell>{t('col.status')}</TableCell>
                <TableCell>{t('col.updated')}</TableCell>
                <TableCell />
              </TableRow>
            </TableHead>
            <TableBody>
              {queue.data.items.map((p) => (
                <TableRow key={p.id} data-project={p.key}>
                  <TableCell>
                    {p.name}
                    <Typography variant="caption" component="div" color="text.secondary">
                      {p.key} · {p.model.project_name} · {p.model.model_key}
                    </Typography>
                  </TableCell>
                  <TableCell>{p.organisation_name}</TableCell>
                  <TableCell>
                    <Chip size="small" color={p.identity_verified ? 'success' : 'warning'} label={p.identity_verified ? t('admin.verified') : t('admin.notVerified')} />
                  </TableCell>
                  <TableCell>
                    <StatusChip status={p.status} />
                  </TableCell>
                  <TableCell>{formatDateTime(p.updated_at)}</TableCell>
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                    {p.status === 'under_review' && (
                      <>
                        <Button size="small" color="error" onClick={() => setRejecting(p)}>
                          {t('admin.reject')}
                        </Button>
                        <Button
                          size="small"
                          variant="contained"
                          onClick={() => ask({ label: t('admin.approve'), text: `${p.name} (${p.organisation_name})`, done: t('admin.approved'), run: () => review(p.id, 'approve').then(refresh) })}
                        >
                          {t('admin.approve')}
                        </Button>
                      </>
                    )}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
      </Paper>
      <Dialog open={!!rejecting} onClose={() => setRejecting(null)} maxWidth="xs" fullWidth>
        <DialogTitle>{t('admin.reject')}</DialogTitle>
        <DialogContent>
          <TextField autoFocus fullWidth multiline minRows={2} margin="dense" label={t('admin.reason')} value={reason} onChange={(e) => setReason(e.target.value)} required />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setRejecting(null)}>{t('cred.close')}</Button>
          <Button
            color="error"
            variant="contained"
            disabled={!reason.trim()}
            onClick={async () => {
              try {
                await review(rejecting!.id, 'reject', reason.trim());
                showSnackbar(t('admin.rejectedDone'));
                setRejecting(null);
                setReason('');
                await refresh();
              } catch {
                /* error dialog */
              }
            }}
          >
            {t('admin.reject')}
          </Button>
        </DialogActions>
      </Dialog>
      {dialog}
    </>
  );
}
