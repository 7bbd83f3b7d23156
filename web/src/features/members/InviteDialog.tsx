import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { reportError } from '../../api/client';
import { ApiError } from '../../api/errors';
import { DIGITS_ONLY, EMAIL_PATTERN } from '../account/passwordRules';
import { inviteMember, ROLES, type Invite } from './api';

const EMPTY: Invite = { email: '', role: 'member', first_name: '', last_name: '' };

export function inviteProblems(v: Invite): Partial<Record<keyof Invite, string>> {
  const p: Partial<Record<keyof Invite, string>> = {};
  if (!v.email.trim()) p.email = 'validation.required';
  else if (!EMAIL_PATTERN.test(v.email.trim())) p.email = 'validation.email';
  for (const f of ['first_name', 'last_name'] as const) {
    if (!v[f].trim()) p[f] = 'validation.required';
    else if (DIGITS_ONLY.test(v[f].trim())) p[f] = 'validation.notDigitsOnly';
  }
  return p;
}

/** The members list's invite dialog: e-mail, role, first and last name (SPEC §2, §7). */
export default function InviteDialog({ open, onClose, canGrantOwner }: { open: boolean; onClose: () => void; canGrantOwner: boolean }) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const [v, setV] = useState<Invite>(EMPTY);
  const [submitted, setSubmitted] = useState(false);
  const [server, setServer] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const problems = inviteProblems(v);
  const close = () => {
    setV(EMPTY);
    setSubmitted(false);
    setServer({});
    setError(null);
    onClose();
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (Object.keys(problems).length) return;
    setBusy(true);
    setError(null);
    try {
      await inviteMember({ ...v, email: v.email.trim(), first_name: v.first_name.trim(), last_name: v.last_name.trim() });
      await queryClient.invalidateQueries({ queryKey: ['members'] });
      close();
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) setServer(Object.fromEntries(err.fieldErrors.map((f) => [f.field, f.message])));
      else if (err instanceof ApiError && err.serverMessage && err.status < 500) setError(err.serverMessage);
      else reportError(err);
    } finally {
      setBusy(false);
    }
  };
  const field = (f: keyof Invite) => ({
    value: v[f],
    onChange: (e: { target: { value: string } }) => {
      setV((x) => ({ ...x, [f]: e.target.value }));
      setServer((s) => ({ ...s, [f]: '' }));
      setError(null);
    },
    error: !!server[f] || (submitted && !!problems[f]),
    helperText: server[f] || (submitted && problems[f] ? t(problems[f]!) : undefined),
    required: true,
    fullWidth: true,
  });
  return (
    <Dialog open={open} onClose={busy ? undefined : close} maxWidth="sm" fullWidth aria-labelledby="invite-title">
      <form onSubmit={submit} noValidate>
        <DialogTitle id="invite-title">{t('members.inviteTitle')}</DialogTitle>
        <DialogContent sx={{ display: 'flex', flexDirection: 'column', gap: 2, pt: '8px !important' }}>
          <Typography variant="body2" color="text.secondary">
            {t('members.inviteIntro')}
          </Typography>
          {error && <Alert severity="error">{error}</Alert>}
          <TextField label={t('members.email')} type="email" autoFocus {...field('email')} />
          {i18n.language === 'ja' ? (
            <>
              <TextField label={t('members.lastName')} {...field('last_name')} />
              <TextField label={t('members.firstName')} {...field('first_name')} />
            </>
          ) : (
            <>
              <TextField label={t('members.firstName')} {...field('first_name')} />
              <TextField label={t('members.lastName')} {...field('last_name')} />
            </>
          )}
          <TextField select label={t('members.role')} {...field('role')} helperText={t(`members.roleHelp.${v.role}`)}>
            {ROLES.filter((r) => r !== 'owner' || canGrantOwner).map((r) => (
              <MenuItem key={r} value={r}>
                {t(`roles.${r}`)}
              </MenuItem>
            ))}
          </TextField>
        </DialogContent>
        <DialogActions>
          <Button onClick={close} disabled={busy}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={busy}>
            {t('members.sendInvite')}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
