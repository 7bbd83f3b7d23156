import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import RadioButtonUncheckedIcon from '@mui/icons-material/RadioButtonUnchecked';
import CancelIcon from '@mui/icons-material/Cancel';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import { reportError } from '../../api/client';
import { ApiError } from '../../api/errors';
import AuthFrame from './AuthFrame';
import { login, register, type Registration } from './auth';
import { checkPassword, DIGITS_ONLY, EMAIL_PATTERN, PASSWORD_RULE_TEXT, type PasswordRule } from './passwordRules';

type Field = keyof Registration | 'confirm';

const EMPTY: Record<Field, string> = { first_name: '', last_name: '', email: '', organisation_name: '', password: '', confirm: '' };

/** Field problems as i18n keys (pure; the form shows them once a field is touched or on submit). */
export function registrationProblems(v: Record<Field, string>): Partial<Record<Field, string>> {
  const p: Partial<Record<Field, string>> = {};
  for (const f of ['first_name', 'last_name', 'organisation_name'] as const) {
    if (!v[f].trim()) p[f] = 'validation.required';
    else if (DIGITS_ONLY.test(v[f].trim())) p[f] = 'validation.notDigitsOnly';
  }
  if (!v.email.trim()) p.email = 'validation.required';
  else if (!EMAIL_PATTERN.test(v.email.trim())) p.email = 'validation.email';
  const rules = checkPassword(v.password, { email: v.email, first_name: v.first_name, last_name: v.last_name });
  const broken = (Object.keys(PASSWORD_RULE_TEXT) as PasswordRule[]).find((r) => !rules[r]);
  if (!v.password) p.password = 'validation.required';
  else if (broken) p.password = PASSWORD_RULE_TEXT[broken];
  if (!v.confirm) p.confirm = 'validation.required';
  else if (v.confirm !== v.password) p.confirm = 'password.mismatch';
  return p;
}

export default function RegisterPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [values, setValues] = useState(EMPTY);
  const [touched, setTouched] = useState<Partial<Record<Field, boolean>>>({});
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<Partial<Record<Field, string>>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const problems = registrationProblems(values);
  const rules = checkPassword(values.password, { email: values.email, first_name: values.first_name, last_name: values.last_name });
  const show = (f: Field) => submitted || touched[f];
  const errorOf = (f: Field) => serverErrors[f] ?? (show(f) && problems[f] ? t(problems[f]!) : undefined);

  const set = (f: Field) => (e: { target: { value: string } }) => {
    setValues((v) => ({ ...v, [f]: e.target.value }));
    setServerErrors((s) => ({ ...s, [f]: undefined }));
  };
  const blur = (f: Field) => () => setTouched((s) => ({ ...s, [f]: true }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    setFormError(null);
    if (Object.keys(problems).length) return;
    const data: Registration = {
      email: values.email.trim(),
      password: values.password,
      first_name: values.first_name.trim(),
      last_name: values.last_name.trim(),
      organisation_name: values.organisation_name.trim(),
    };
    setBusy(true);
    let verificationRequired = false;
    try {
      verificationRequired = !!(await register(data)).verification_required;
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiError && err.status === 422 && err.fieldErrors.length) {
        const byField: Partial<Record<Field, string>> = {};
        const rest: string[] = [];
        for (const fe of err.fieldErrors) {
          if (fe.field in EMPTY) byField[fe.field as Field] = fe.message;
          else rest.push(fe.field ? `${fe.field}: ${fe.message}` : fe.message);
        }
        setServerErrors(byField);
        if (rest.length) setFormError(rest.join('\n'));
      } else if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.serverMessage) {
        setFormError(err.serverMessage);
      } else {
        reportError(err);
      }
      return;
    }
    // Registered: where the e-mail must be verified first, say so and offer to resend; else sign in and onboard.
    if (verificationRequired) {
      navigate('/verify-email', { replace: true, state: { email: data.email } });
      return;
    }
    try {
      await login({ email: data.email, password: data.password });
    } catch (err) {
      setBusy(false);
      if (err instanceof ApiError && err.serverMessage) {
        navigate('/login', { replace: true, state: { notice: err.serverMessage } });
      } else {
        reportError(err);
      }
    }
  };

  const field = (f: Field, label: string, extra: Partial<Parameters<typeof TextField>[0]> = {}) => (
    <TextField
      label={label}
      name={f}
      value={values[f]}
      onChange={set(f)}
      onBlur={blur(f)}
      error={!!errorOf(f)}
      helperText={errorOf(f)}
      required
      fullWidth
      {...extra}
    />
  );

  const ruleIcon = (ok: boolean) =>
    !values.password ? (
      <RadioButtonUncheckedIcon sx={{ fontSize: 16, color: 'text.disabled' }} />
    ) : ok ? (
      <CheckCircleIcon sx={{ fontSize: 16 }} color="success" />
    ) : (
      <CancelIcon sx={{ fontSize: 16 }} color="error" />
    );

  return (
    <AuthFrame title={t('signup.title')} width={520}>
      <Box component="form" onSubmit={submit} noValidate sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
        {formError && (
          <Alert severity="error" sx={{ whiteSpace: 'pre-line' }}>
            {formError}
          </Alert>
        )}
        <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, gap: 2 }}>
          {field('first_name', t('signup.firstName'), { autoComplete: 'given-name', autoFocus: true })}
          {field('last_name', t('signup.lastName'), { autoComplete: 'family-name' })}
        </Box>
        {field('email', t('signup.email'), { type: 'email', autoComplete: 'email' })}
        {field('organisation_name', t('signup.organisation'), { autoComplete: 'organization' })}
        {field('password', t('signup.password'), {
          type: 'password',
          autoComplete: 'new-password',
          // the rules list below says what is wrong; the helper only says 'required'
          helperText: serverErrors.password ?? (show('password') && !values.password ? t('validation.required') : undefined),
        })}
        <List dense disablePadding aria-label={t('signup.passwordRules')} sx={{ mt: -1 }}>
          {(Object.keys(PASSWORD_RULE_TEXT) as PasswordRule[]).map((r) => (
            <ListItem key={r} disableGutters sx={{ py: 0 }} data-rule={r} data-ok={values.password ? String(rules[r]) : 'pending'}>
              <ListItemIcon sx={{ minWidth: 24 }}>{ruleIcon(rules[r])}</ListItemIcon>
              <ListItemText primary={t(PASSWORD_RULE_TEXT[r])} slotProps={{ primary: { variant: 'caption', color: 'text.secondary' } }} />
            </ListItem>
          ))}
        </List>
        {field('confirm', t('signup.confirm'), { type: 'password', autoComplete: 'new-password' })}
        <Button type="submit" variant="contained" size="large" disabled={busy} fullWidth>
          {busy ? t('signup.submitting') : t('signup.submit')}
        </Button>
        <Typography variant="body2" color="text.secondary" sx={{ textAlign: 'center' }}>
          {t('signup.haveAccount')}{' '}
          <Link component={RouterLink} to="/login">
            {t('signup.signIn')}
          </Link>
        </Typography>
      </Box>
    </AuthFrame>
  );
}
