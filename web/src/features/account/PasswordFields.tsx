import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import CancelIcon from '@mui/icons-material/Cancel';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import RadioButtonUncheckedIcon from '@mui/icons-material/RadioButtonUnchecked';
import { useTranslation } from 'react-i18next';
import RequiredField from './RequiredField';
import { checkPassword, PASSWORD_RULE_TEXT, passwordProblem, type PasswordRule, type Person } from './passwordRules';

/** New password + confirmation with the SPEC §5 rules checked live; `problem` says what blocks submitting. */
export function newPasswordProblem(password: string, confirm: string, person: Person): string | null {
  if (!password) return 'validation.required';
  const broken = passwordProblem(password, person);
  if (broken) return PASSWORD_RULE_TEXT[broken];
  if (confirm !== password) return 'password.mismatch';
  return null;
}

export default function PasswordFields({
  password,
  confirm,
  onPassword,
  onConfirm,
  person,
  submitted,
  serverError,
  labels,
}: {
  password: string;
  confirm: string;
  onPassword: (v: string) => void;
  onConfirm: (v: string) => void;
  person: Person;
  submitted: boolean;
  serverError?: string;
  labels?: { password?: string; confirm?: string };
}) {
  const { t } = useTranslation();
  const rules = checkPassword(password, person);
  const icon = (ok: boolean) =>
    !password ? <RadioButtonUncheckedIcon sx={{ fontSize: 16, color: 'text.disabled' }} /> : ok ? <CheckCircleIcon sx={{ fontSize: 16 }} color="success" /> : <CancelIcon sx={{ fontSize: 16 }} color="error" />;
  const passwordError = serverError ?? (submitted && !password && t('validation.required'));
  const confirmError = submitted && (!confirm ? t('validation.required') : confirm !== password ? t('password.mismatch') : undefined);
  return (
    <>
      <RequiredField label={labels?.password ?? t('account.newPassword')} type="password" autoComplete="new-password" value={password} onValue={onPassword} problem={passwordError} fullWidth />
      <List dense disablePadding aria-label={t('signup.passwordRules')} sx={{ mt: -1 }}>
        {(Object.keys(PASSWORD_RULE_TEXT) as PasswordRule[]).map((r) => (
          <ListItem key={r} disableGutters sx={{ py: 0 }} data-rule={r} data-ok={password ? String(rules[r]) : 'pending'}>
            <ListItemIcon sx={{ minWidth: 24 }}>{icon(rules[r])}</ListItemIcon>
            <ListItemText primary={t(PASSWORD_RULE_TEXT[r])} slotProps={{ primary: { variant: 'caption', color: 'text.secondary' } }} />
          </ListItem>
        ))}
      </List>
      <RequiredField label={labels?.confirm ?? t('signup.confirm')} type="password" autoComplete="new-password" value={confirm} onValue={onConfirm} problem={confirmError} fullWidth />
    </>
  );
}
