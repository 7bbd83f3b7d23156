import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
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
import { saveBlob } from '../../lib/browser';
import { formatDateTime } from '../../lib/format';
import { type Credential, createCredential, type PlatformProject, projectsKey, revokeCredential, useCredentials } from './api';
import { useConfirm } from './common';
import { MONO_FONT_STACK } from '../../lib/fonts';

/** The secret is shown once; the dialog offers the download and warns before closing without it (SPEC §8). */
function SecretDialog({ cred, project, onClose }: { cred: Credential | null; project: PlatformProject; onClose: () => void }) {
  const { t } = useConfirm();
  const [downloaded, setDownloaded] = useState(false);
  if (!cred?.secret) return null;
  const download = () => {
    const text = JSON.stringify({ name: cred.name, kind: cred.kind, api_key: cred.secret, endpoint: project.endpoint, header: 'X-API-Key' }, null, 2);
    saveBlob(new Blob([text], { type: 'application/json' }), `${project.key}-${cred.name.replace(/[^\w-]+/g, '_')}-credentials.json`);
    setDownloaded(true);
  };
  return (
    <Dialog open onClose={undefined} maxWidth="sm" fullWidth aria-labelledby="secret-title">
      <DialogTitle id="secret-title">{t('cred.secretTitle')}</DialogTitle>
      <DialogContent>
        <Alert severity="warning" sx={{ mb: 2 }}>
          {t('cred.secretWarning')}
        </Alert>
        <TextField fullWidth value={cred.secret} slotProps={{ htmlInput: { readOnly: true, 'data-testid': 'api-secret' } }} size="small" />
      </DialogContent>
      <DialogActions>
        <Button onClick={() => navigator.clipboard?.writeText(cred.secret!)}>{t('cred.copy')}</Button>
        <Button onClick={onClose} color={downloaded ? 'primary' : 'error'}>
          {downloaded ? t('cred.close') : t('cred.closeAnyway')}
        </Button>
        <Button variant="contained" onClick={download}>
          {t('cred.download')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

export default function CredentialsPanel({ project, canWrite }: { project: PlatformProject; canWrite: boolean }) {
  const { t, ask, dialog } = useConfirm();
  const qc = useQueryClient();
  const creds = useCredentials(project.id);
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'production' | 'sandbox'>('production');
  const [touched, setTouched] = useState(false);
  const [created, setCreated] = useState<Credential | null>(null);
  const allowed = ['approved', 'running', 'stopped'].includes(project.status);
  const refresh = () => qc.invalidateQueries({ queryKey: [...projectsKey, 'credentials', project.id] });

  async function create() {
    setTouched(true);
    if (!name.trim()) return;
    try {
      const c = await createCredential(project.id, name.trim(), kind);
      setOpen(false);
      setName('');
      setTouched(false);
      setCreated(c);
      await refresh();
    } catch {
      /* error dialog */
    }
  }

  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', mb: 1 }}>
        <Typography variant="h6" component="h2" sx={{ flex: 1 }}>
          {t('cred.title')}
        </Typography>
        {canWrite && allowed && (
          <Button variant="outlined" onClick={() => setOpen(true)}>
            {t('cred.new')}
          </Button>
        )}
      </Box>
      {!allowed && <Typography color="text.secondary">{project.status === 'under_review' ? t('details.underReview') : t('cred.notYet')}</Typography>}
      {allowed && !creds.data?.length && <Typography color="text.secondary">{t('cred.none')}</Typography>}
      {!!creds.data?.length && (
        <Table size="small" aria-label={t('cred.title')}>
          <TableHead>
            <TableRow>
              <TableCell>{t('cred.name')}</TableCell>
              <TableCell>{t('cred.kind')}</TableCell>
              <TableCell>{t('cred.prefix')}</TableCell>
              <TableCell>{t('cred.created')}</TableCell>
              <TableCell>{t('cred.lastUsed')}</TableCell>
              <TableCell />
            </TableRow>
          </TableHead>
          <TableBody>
            {creds.data.map((c) => (
              <TableRow key={c.id}>
                <TableCell>{c.name}</TableCell>
                <TableCell>{t(`cred.${c.kind}`)}</TableCell>
                <TableCell sx={{ fontFamily: MONO_FONT_STACK }}>{c.prefix}…</TableCell>
                <TableCell>{formatDateTime(c.created_at)}</TableCell>
                <TableCell>{c.last_used_at ? formatDateTime(c.last_used_at) : t('cred.never')}</TableCell>
                <TableCell align="right">
                  {c.revoked_at ? (
                    <Typography variant="body2" color="error">
                      {t('cred.revoked')}
                    </Typography>
                  ) : (
                    canWrite && (
                      <Button
                        size="small"
                        color="error"
                        onClick={() => ask({ label: t('cred.revoke'), text: t('cred.revokeConfirm', { name: c.name }), destructive: true, done: t('cred.revoked'), run: () => revokeCredential(project.id, c.id).then(refresh) })}
                      >
                        {t('cred.revoke')}
                      </Button>
                    )
                  )}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
      <Dialog open={open} onClose={() => setOpen(false)} maxWidth="xs" fullWidth aria-labelledby="cred-title">
        <DialogTitle id="cred-title">{t('cred.new')}</DialogTitle>
        <DialogContent>
          <TextField
            autoFocus
            fullWidth
            required
            margin="dense"
            label={t('cred.name')}
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={touched && !name.trim()}
            helperText={touched && !name.trim() ? t('form.required') : ' '}
          />
          <TextField select fullWidth margin="dense" label={t('cred.kind')} value={kind} onChange={(e) => setKind(e.target.value as 'production' | 'sandbox')}>
            <MenuItem value="production">{t('cred.production')}</MenuItem>
            <MenuItem value="sandbox">{t('cred.sandbox')}</MenuItem>
          </TextField>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)}>{t('cred.close')}</Button>
          <Button variant="contained" onClick={create}>
            {t('cred.create')}
          </Button>
        </DialogActions>
      </Dialog>
      <SecretDialog cred={created} project={project} onClose={() => setCreated(null)} />
      {dialog}
    </Paper>
  );
}
