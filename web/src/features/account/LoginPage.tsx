import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import VisibilityIcon from '@mui/icons-material/Visibility';
import VisibilityOffIcon from '@mui/icons-material/VisibilityOff';
import Divider from '@mui/material/Divider';
import BusinessIcon from '@mui/icons-material/Business';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useLocation, useNavigate, useSearchParams } from 'react-router';
import { reportError } from '../../api/client';
import { ApiError } from '../../api/errors';
import type { NavigateState } from '../../lib/navigation';
import AuthFrame from './AuthFrame';
import { exchangeSsoCode, resendVerification, useAuthOptions } from './api';
import { login } from './auth';
import RequiredField from './RequiredField';

export default function LoginPage() {
  const { t } = useTranslation();
  const location = useLocation();
  const notice = (location.state as NavigateState | null)?.notice;
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [show, setShow] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [touched, setTouched] = useState(false);
  const [unverified, setUnverified] = useState(false);
  const [resent, setResent] = useState<string | null>(null);
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const { data: options } = useAuthOptions();
  const ssoError = params.get('sso_error');
  const ssoCode = params.get('sso_code');
  const exchanging = useRef(false);
  const from = (location.state as NavigateState | null)?.from;

  // Back from the directory: trade the one-time code for a session, then go where the user was headed.
  useEffect(() => {
    if (!ssoCode || exchanging.current) return;
    exchanging.current = true;
    const returnTo = params.get('return_to');
    void (async () => {
      try {
        await navigate('/login', { replace: true, state: { from: returnTo && returnTo.startsWith('/') && !returnTo.startsWith('//') ? returnTo : '/' } });
        await exchangeSsoCode(ssoCode);
      } catch (err) {
        setError(err instanceof ApiError && err.serverMessage ? err.serverMessage : t('accountClient.unknown'));
      }
    })();
  }, [ssoCode, params, navigate, t]);

  const ssoHref = `/account/api/oidc/login${from ? `?return_to=${encodeURIComponent(from)}` : ''}`;
  const local = options?.local_login !== false;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!email.trim() || !password) return;
    setBusy(true);
    setError(null);
    setUnverified(false);
    setResent(null);
    try {
      // On success the session changes and the guard takes the user where they wanted to go.
      await login({ email: email.trim(), password });
    } catch (err) {
      if (err instanceof ApiError && err.status >= 400 && err.status < 500 && (err.serverMessage || err.fieldErrors.length)) {
        setError(err.serverMessage ?? err.fieldErrors.map((f) => f.message).join('\n'));
        setUnverified(err.code === 'email_not_verified');
      } else {
        reportError(err);
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame title={t('login.title')}>
      <Box component="form" onSubmit={submit} noValidate sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
        {notice && !error && <Alert severity="info">{notice}</Alert>}
        {(error || ssoError) && (
          <Alert
            severity="error"
            sx={{ whiteSpace: 'pre-line' }}
            action={
              unverified && !resent ? (
                <Button color="inherit" size="small" onClick={() => void resendVerification(email.trim()).then((r) => setResent(r.message), reportError)}>
                  {t('account.resend')}
                </Button>
              ) : undefined
            }
          >
            {error ?? ssoError}
          </Alert>
        )}
        {resent && <Alert severity="success">{resent}</Alert>}
        {options?.sso && (
          <>
            <Button component="a" href={ssoHref} variant={local ? 'outlined' : 'contained'} size="large" startIcon={<BusinessIcon />} fullWidth>
              {t('login.sso')}
            </Button>
            {local && <Divider sx={{ color: 'text.secondary', fontSize: 12 }}>{t('login.or')}</Divider>}
          </>
        )}
        {local && (
          <>
        <RequiredField label={t('login.email')} type="email" autoComplete="username" autoFocus value={email} onValue={setEmail} problem={touched && !email.trim() && t('validation.required')} fullWidth size="medium" />
        <RequiredField
          label={t('login.password')}
          type={show ? 'text' : 'password'}
          autoComplete="current-password"
          value={password}
          onValue={setPassword}
          problem={touched && !password && t('validation.required')}
          fullWidth
          size="medium"
          slotProps={{
            input: {
              endAdornment: (
                <InputAdornment position="end">
                  <IconButton onClick={() => setShow((s) => !s)} edge="end" aria-label={show ? t('login.hidePassword') : t('login.showPassword')}>
                    {show ? <VisibilityOffIcon /> : <VisibilityIcon />}
                  </IconButton>
                </InputAdornment>
              ),
            },
          }}
        />
        <Box sx={{ mt: -1, textAlign: 'right' }}>
          <Link component={RouterLink} to="/forgot-password" variant="body2">
            {t('login.forgot')}
          </Link>
        </Box>
        <Button type="submit" variant="contained" size="large" disabled={busy || !!ssoCode} fullWidth>
          {busy ? t('login.signingIn') : t('login.submit')}
        </Button>
        <Typography variant="body2" color="text.secondary" sx={{ textAlign: 'center' }}>
          {t('login.noAccount')}{' '}
          <Link component={RouterLink} to="/register" state={location.state}>
            {t('login.register')}
          </Link>
        </Typography>
          </>
        )}
      </Box>
    </AuthFrame>
  );
}
