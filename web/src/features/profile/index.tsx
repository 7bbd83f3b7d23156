import Alert from '@mui/material/Alert';
import Avatar from '@mui/material/Avatar';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Divider from '@mui/material/Divider';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import { useMe } from '../../api/me';
import type { AreaProps } from '../../app/area';
import { initialsOf } from '../../app/UserMenu';
import InfoGrid from '../../components/InfoGrid';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';

/** /profile: users/me, read-only in this version. */
export default function ProfileArea(_props: AreaProps) {
  const { t } = useTranslation();
  const { data: me, isPending, isError } = useMe();
  if (isPending) return <PageLoading />;
  if (isError || !me) return <Alert severity="error">{t('errors.loadFailed')}</Alert>;
  const fullName = me.name || `${me.first_name} ${me.last_name}`.trim();
  return (
    <Box sx={{ maxWidth: 880 }}>
      <PageHeader title={t('pages.profile')} subtitle={t('profile.readOnly')} />
      <Paper variant="outlined" sx={{ p: 3 }}>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mb: 2 }}>
          <Avatar sx={{ width: 56, height: 56, bgcolor: 'secondary.main', fontSize: 20 }}>{initialsOf(me)}</Avatar>
          <Box>
            <Typography variant="h6" component="p">
              {fullName}
            </Typography>
            <Typography color="text.secondary">{me.email}</Typography>
          </Box>
          <Box sx={{ flex: 1 }} />
          <Chip label={t(`roles.${me.role}`, { defaultValue: me.role })} color="primary" variant="outlined" />
        </Box>
        <Divider sx={{ mb: 2 }} />
        <InfoGrid
          items={[
            { label: t('profile.name'), value: fullName },
            { label: t('profile.email'), value: me.email },
            { label: t('profile.role'), value: t(`roles.${me.role}`, { defaultValue: me.role }) },
            { label: t('profile.organisation'), value: me.organisation?.name },
            { label: t('profile.department'), value: me.department },
            { label: t('profile.officeLocation'), value: me.office_location },
          ]}
        />
      </Paper>
    </Box>
  );
}
