import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { useMe } from '../../api/me';
import { useProfile } from './api';
import SetupForm from './SetupForm';

/** SPEC §1 onboarding: basic info, account info, registered address and (owners, admins) organisation details. */
export default function CompleteRegistrationPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { data: profile, isPending, isError } = useProfile();
  const { data: me } = useMe();
  if (isPending) return <PageLoading />;
  if (isError || !profile) return <Alert severity="error">{t('errors.loadFailed')}</Alert>;
  const manager = (me?.role ?? profile.role) === 'owner' || (me?.role ?? profile.role) === 'admin';
  return (
    <Box sx={{ maxWidth: 880 }}>
      <PageHeader title={t('onboarding.title')} subtitle={t('onboarding.subtitle')} />
      {profile.registration_complete && (
        <Alert severity="success" sx={{ mb: 2 }}>
          {t('onboarding.alreadyComplete')}
        </Alert>
      )}
      <Paper variant="outlined" sx={{ p: 3 }}>
        <SetupForm
          profile={profile}
          sections={manager ? ['basic', 'account', 'address', 'organisation'] : ['basic', 'account', 'address']}
          complete={manager}
          submitLabel={t('onboarding.submit')}
          onSaved={() => navigate('/profile?tab=identity')}
        />
      </Paper>
    </Box>
  );
}
