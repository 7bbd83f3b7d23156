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
import { useMe } from '../../api/me';
import { memberName, useMember } from './api';
import { RoleSelect, StatusSelect, useMemberChange } from './MemberActions';
import { StatusChip } from './MemberListPage';

export default function MemberDetailsPage() {
  const { t } = useTranslation();
  const { member_id } = useParams();
  const { data: m, isPending, isError } = useMember(member_id);
  const { data: me } = useMe();
  const change = useMemberChange();
  const manager = (me?.role === 'owner' || me?.role === 'admin') && me?.id !== m?.id;
  const isOwner = me?.role === 'owner';
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
      {change.dialog}
      <Paper variant="outlined" sx={{ p: 3 }}>
        <InfoGrid
          items={[
            { label: t('members.firstName'), value: m.first_name },
            { label: t('members.lastName'), value: m.last_name },
            { label: t('members.email'), value: m.email },
            {
              label: t('members.role'),
              value: manager ? <RoleSelect member={m} canGrantOwner={isOwner} onChange={(c) => change.ask(m, c)} /> : t(`roles.${m.role}`, { defaultValue: m.role }),
            },
            {
              label: t('members.status'),
              value: manager && (m.role !== 'owner' || isOwner) ? <StatusSelect member={m} onChange={(c) => change.ask(m, c)} /> : <StatusChip status={m.status} />,
            },
            { label: t('members.createdAt'), value: formatDateTime(m.created_at) },
            ...(
              [
                ['middle_name', m.middle_name],
                ['birth_date', m.birth_date],
                ['gender', m.gender ? t(`onboarding.genders.${m.gender}`) : null],
                ['phone', m.phone],
                ['country_code', m.country_code],
                ['state_or_province', m.state_or_province],
                ['city', m.city],
                ['postal_code', m.postal_code],
                ['address', m.address],
                ['ip_address', m.ip_address],
              ] as const
            )
              .filter(([, v]) => v)
              .map(([k, v]) => ({ label: t(`onboarding.fields.${k}`), value: v })),
          ]}
        />
      </Paper>
    </Box>
  );
}
