import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Link from '@mui/material/Link';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useLocation, useNavigate, useSearchParams } from 'react-router';
import { reportError } from '../../api/client';
import { ApiError } from '../../api/errors';
import { useSignedIn } from '../../api/session';
import AuthFrame from './AuthFrame';
import { acceptInvitation, forgotPassword, invitation, resendVerification, resetPassword, useAuthOptions, verifyEmail, type Invitation } from './api';
import PasswordFields, { newPasswordProblem } from './PasswordFields';
import RequiredField from './RequiredField';
import { EMAIL_PATTERN } from './passwordRules';

/** A user-caused error's own text, or null (then the message dialog shows it). */
function formError(err: unknown): string | null {
  if (err instanceof ApiError && err.status >= 400 && err.status < 500) {
    if (err.fieldErrors.length) return err.fieldErrors.map((f) => f.message).join('\n');
    if (err.serverMessage) return err.serverMessage;
  }
  reportError(err);
  return null;
}

const BackToLogin = () => {
  const { t } = useTranslation();
  return (
    <Typography variant="body2" sx={{ textAlign: 'center' }}>
      <Link component={RouterLink} to="/login">
        {t('account.backToLogin')}
      </Link>
    </Typography>
  );
};

/** Asks for an e-mail and sends a link (forgot password, resend verification). The answer never says whether it exists. */
function EmailLinkForm({ title, intro, submitLabel, send, initial = '' }: { title: string; intro: string; submitLabel: string; send: (email: string) => Promise<{ message: string }>; initial?: string }) {
  const { t } = useTranslation();
  const [email, setEmail] = useState(initial);
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const problem = !email.trim() ? 'validation.required' : !EMAIL_PATTERN.test(email.trim()) ? 'validation.email' : null;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (problem) return;
    setBusy(true);
    setError(null);
    try {
      setDone((await send(email.trim())).message);
    } catch (err) {
      setError(formError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <AuthFrame title={title}>
      <Box component="form" onSubmit={submit} noValidate sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
        {done ? <Alert severity="success">{done}</Alert> : <Typography color="text.secondary">{intro}</Typography>}
        {error && <Alert severity="error">{error}</Alert>}
        <RequiredField label={t('login.email')} type="email" autoComplete="username" value={email} onValue={setEmail} problem={submitted && problem && t(problem)} fullWidth autoFocus />
        <Button type="submit" variant="contained" size="large" disabled={busy} fullWidth>
          {submitLabel}
        </Button>
        <BackToLogin />
      </Box>
    </AuthFrame>
  );
}

export function ForgotPasswordPage() {
  const { t } = useTranslation();
  return <EmailLinkForm title={t('account.forgotTitle')} intro={t('account.forgotIntro')} submitLabel={t('account.sendResetLink')} send={forgotPassword} />;
}

/** /verify-email?token=…: verifies at once; without a token: 'check your inbox' and resend. */
export function VerifyEmailPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const location = useLocation();
  const signedIn = useSignedIn();
  const token = params.get('token');
  const [state, setState] = useState<{ ok: boolean; text: string } | null>(null);
  const started = useRef(false);
  useEffect(() => {
    if (!token || started.current) return;
    started.current = true;
    verifyEmail(token).then(
      (r) => setState({ ok: true, text: r.message }),
      (err) => setState({ ok: false, text: err instanceof ApiError && err.serverMessage ? err.serverMessage : t('accountClient.unknown') }),
    );
  }, [token, t]);
  const { data: options, isPending } = useAuthOptions();
  const email = (location.state as { email?: string } | null)?.email ?? '';
  if (!token && isPending) {
    return (
      <AuthFrame title={t('account.verifyTitle')}>
        <CircularProgress size={20} />
      </AuthFrame>
    );
  }
  // Where the installation asks for no verification (the default), none is sent: say so rather than 'we sent'.
  if (!token && options && !options.email_verification_required) {
    return (
      <AuthFrame title={t('account.verifyTitle')}>
        <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
          <Alert severity="info">{t('account.verificationOff')}</Alert>
          <Button component={RouterLink} to={signedIn ? '/' : '/login'} variant="contained" size="large">
            {signedIn ? t('account.continue') : t('login.submit')}
          </Button>
        </Box>
      </AuthFrame>
    );
  }
  if (!token) {
    return (
      <EmailLinkForm
        title={t('account.verifyTitle')}
        intro={email ? t('account.checkInboxFor', { email }) : t('account.checkInbox')}
        submitLabel={t('account.resend')}
        send={resendVerification}
        initial={email}
      />
    );
  }
  return (
    <AuthFrame title={t('account.verifyTitle')}>
      <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
        {!state && (
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 2 }}>
            <CircularProgress size={20} />
            <Typography>{t('account.verifying')}</Typography>
          </Box>
        )}
        {state && <Alert severity={state.ok ? 'success' : 'error'}>{state.text}</Alert>}
        {state && !state.ok && (
          <Button component={RouterLink} to="/verify-email" variant="outlined">
            {t('account.resend')}
          </Button>
        )}
        {state?.ok && (
          <Button component={RouterLink} to={signedIn ? '/' : '/login'} variant="contained" size="large">
            {signedIn ? t('account.continue') : t('login.submit')}
          </Button>
        )}
      </Box>
    </AuthFrame>
  );
}

/** /reset-password?token=…: a new password through the single-use link. */
export function ResetPasswordPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (newPasswordProblem(password, confirm, {})) return;
    setBusy(true);
    setError(null);
    try {
      const r = await resetPassword(token, password, confirm);
      navigate('/login', { replace: true, state: { notice: r.message } });
    } catch (err) {
      setError(formError(err));
      setBusy(false);
    }
  };
  return (
    <AuthFrame title={t('account.resetTitle')}>
      <Box component="form" onSubmit={submit} noValidate sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
        {!token && <Alert severity="error">{t('account.linkMissing')}</Alert>}
        {error && (
          <Alert severity="error" sx={{ whiteSpace: 'pre-line' }}>
            {error}
          </Alert>
        )}
        <PasswordFields password={password} confirm={confirm} onPassword={setPassword} onConfirm={setConfirm} person={{}} submitted={submitted} />
        <Button type="submit" variant="contained" size="large" disabled={busy || !token} fullWidth>
          {t('account.setPassword')}
        </Button>
        <BackToLogin />
      </Box>
    </AuthFrame>
  );
}

/** /accept-invitation?token=…: the invited person sets a password and joins the organisation. */
export function AcceptInvitationPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [info, setInfo] = useState<Invitation | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!token) return setLoadError(t('account.linkMissing'));
    invitation(token).then(setInfo, (err) => setLoadError(err instanceof ApiError && err.serverMessage ? err.serverMessage : t('accountClient.unknown')));
  }, [token, t]);
  const person = info ? { email: info.email, first_name: info.first_name, last_name: info.last_name } : {};
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (newPasswordProblem(password, confirm, person)) return;
    setBusy(true);
    setError(null);
    try {
      await acceptInvitation(token, password, confirm);
      navigate('/profile', { replace: true });
    } catch (err) {
      setError(formError(err));
      setBusy(false);
    }
  };
  return (
    <AuthFrame title={t('account.acceptTitle')} width={480}>
      {loadError && <Alert severity="error">{loadError}</Alert>}
      {loadError && <Box sx={{ mt: 2 }}><BackToLogin /></Box>}
      {!info && !loadError && <CircularProgress size={24} />}
      {info && (
        <Box component="form" onSubmit={submit} noValidate sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
          <Typography>{t('account.acceptIntro', { name: `${info.first_name} ${info.last_name}`.trim(), organisation: info.organisation_name })}</Typography>
          <TextField label={t('login.email')} value={info.email} slotProps={{ input: { readOnly: true } }} fullWidth />
          {error && (
            <Alert severity="error" sx={{ whiteSpace: 'pre-line' }}>
              {error}
            </Alert>
          )}
          <PasswordFields password={password} confirm={confirm} onPassword={setPassword} onConfirm={setConfirm} person={person} submitted={submitted} />
          <Button type="submit" variant="contained" size="large" disabled={busy} fullWidth>
            {t('account.join')}
          </Button>
        </Box>
      )}
    </AuthFrame>
  );
}
