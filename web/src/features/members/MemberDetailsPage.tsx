import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import InfoGrid from '../../components/InfoGrid';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { formatDateTime } from '../../lib/format';
import { memberName, useMember } from './api';
import { StatusChip } from './MemberListPage';

export default function MemberDetailsPage() {
  const { t } = useTranslation();
  const { member_id } = useParams();
  const { data: m, isPending, isError } = useMember(member_id);
  usePageTitle(m ? memberName(m) : null);
  if (isPending) return <PageLoading />;
  if (isError || !m) return <Alert severity="error">{t('errors.loadFailed')}</Alert>;
  return (
    <Box sx={{ maxWidth: 880 }}>
      <PageHeader
        title={memberName(m)}
        subtitle={m.email}
        actions={
          <Button component={RouterLink} to="/users" startIcon={<ArrowBackIcon />}>
            {t('members.back')}
          </Button>
        }
      />
      <Paper variant="outlined" sx={{ p: 3 }}>
        <InfoGrid
          items={[
            { label: t('members.firstName'), value: m.first_name },
            { label: t('members.lastName'), value: m.last_name },
            { label: t('members.email'), value: m.email },
            { label: t('members.role'), value: t(`roles.${m.role}`, { defaultValue: m.role }) },
            { label: t('members.status'), value: <StatusChip status={m.status} /> },
            { label: t('members.createdAt'), value: formatDateTime(m.created_at) },
          ]}
        />
      </Paper>
    </Box>
  );
}
