import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Divider from '@mui/material/Divider';
import Paper from '@mui/material/Paper';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { ApiError } from '../../api/errors';
import { useMe } from '../../api/me';
import type { AreaProps } from '../../app/area';
import LinkAlert from '../../components/LinkAlert';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { changePassword, useProfile, type Profile } from '../account/api';
import PasswordFields, { newPasswordProblem } from '../account/PasswordFields';
import RequiredField from '../account/RequiredField';
import SetupForm from '../account/SetupForm';
import IdentityTab from './IdentityTab';
import PhotoControl from './PhotoControl';
import SettingsTab from './SettingsTab';

const TABS = ['basic', 'account', 'identity', 'settings'] as const;
type TabKey = (typeof TABS)[number];

function ChangePassword({ profile }: { profile: Profile }) {
  const { t } = useTranslation();
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const person = { email: profile.email, first_name: profile.values.first_name ?? '', last_name: profile.values.last_name ?? '' };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (!current || newPasswordProblem(password, confirm, person)) return;
    if (current === password) return setErrors({ password: t('account.passwordSame') });
    setBusy(true);
    try {
      await changePassword(current, password, confirm);
      setCurrent('');
      setPassword('');
      setConfirm('');
      setSubmitted(false);
      setErrors({});
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) setErrors(Object.fromEntries(err.fieldErrors.map((f) => [f.field, f.message])));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Box component="form" onSubmit={submit} noValidate sx={{ display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 420 }} aria-labelledby="change-password">
      <Typography id="change-password" variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
        {t('account.changePassword')}
      </Typography>
      <RequiredField
        label={t('account.currentPassword')}
        type="password"
        autoComplete="current-password"
        value={current}
        onValue={setCurrent}
        problem={errors.current_password ?? (submitted && !current && t('validation.required'))}
      />
      <PasswordFields password={password} confirm={confirm} onPassword={setPassword} onConfirm={setConfirm} person={person} submitted={submitted} serverError={errors.password} />
      <Box>
        <Button type="submit" variant="outlined" disabled={busy}>
          {t('account.changePassword')}
        </Button>
      </Box>
    </Box>
  );
}

/** /profile: tabs basic info, account info, identity verification, settings; the role label (SPEC §6). */
export default function ProfileArea(_props: AreaProps) {
  const { t } = useTranslation();
  const { data: me } = useMe();
  const { data: profile, isPending, isError } = useProfile();
  const [params, setParams] = useSearchParams();
  const tab = (TABS as readonly string[]).includes(params.get('tab') ?? '') ? (params.get('tab') as TabKey) : 'basic';
  if (isPending && !me) return <PageLoading />;
  // The header comes from users/me; the tabs from the account client's profile.
  const fullName = me ? me.name || `${me.first_name} ${me.last_name}`.trim() : `${profile?.values.first_name ?? ''} ${profile?.values.last_name ?? ''}`.trim();
  const role = me?.role ?? profile?.role ?? '';
  const email = me?.email ?? profile?.email ?? '';
  const organisation = me?.organisation?.name ?? profile?.values.organisation_name ?? '';
  const manager = role === 'owner' || role === 'admin';
  return (
    <Box sx={{ maxWidth: 960 }}>
      <PageHeader title={t('pages.profile')} subtitle={t('profile.subtitle')} />
      {profile && !profile.registration_complete && (
        <LinkAlert severity="warning" sx={{ mb: 2 }} to="/complete-registration" linkLabel={t('profile.completeNow')}>
          {t('profile.incomplete')}
        </LinkAlert>
      )}
      {profile?.platform_admin_reason === 'first_account' && (
        <LinkAlert severity="info" sx={{ mb: 2 }} data-testid="first-admin-notice" to="/admin/settings" linkLabel={t('profile.openSettings')}>
          {t('profile.firstAdmin')}
        </LinkAlert>
      )}
      <Paper variant="outlined" sx={{ p: 3 }}>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mb: 1 }}>
          <PhotoControl me={me} fallbackName={fullName || email} />
          <Box>
            <Typography variant="h6" component="p">
              {fullName || email}
            </Typography>
            <Typography color="text.secondary">{email}</Typography>
            <Typography color="text.secondary">{organisation}</Typography>
          </Box>
          <Box sx={{ flex: 1 }} />
          {role && <Chip label={t(`roles.${role}`, { defaultValue: role })} color="primary" variant="outlined" />}
        </Box>
        {!profile && isPending && <PageLoading />}
        {!profile && isError && <Alert severity="error">{t('errors.loadFailed')}</Alert>}
        {profile && (
          <>
        <Tabs value={tab} onChange={(_e, v: TabKey) => setParams({ tab: v }, { replace: true })} sx={{ borderBottom: 1, borderColor: 'divider', mb: 3 }} variant="scrollable">
          {TABS.map((k) => (
            <Tab key={k} value={k} label={t(`profile.tabs.${k}`)} />
          ))}
        </Tabs>
        {tab === 'basic' && <SetupForm key="basic" profile={profile} sections={['basic', 'address']} />}
        {tab === 'account' && (
          <Box sx={{ display: 'flex', flexDirection: 'column', gap: 3 }}>
            <SetupForm key="account" profile={profile} sections={manager ? ['account', 'organisation'] : ['account']} />
            {!manager && (
              <Typography variant="body2" color="text.secondary">
                {t('profile.organisationManaged', { organisation: profile.values.organisation_name })}
              </Typography>
            )}
            {profile.has_password && (
              <>
                <Divider />
                <ChangePassword profile={profile} />
              </>
            )}
          </Box>
        )}
        {tab === 'identity' && <IdentityTab profile={profile} />}
        {tab === 'settings' && <SettingsTab profile={profile} />}
          </>
        )}
      </Paper>
    </Box>
  );
}
