import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import PersonAddIcon from '@mui/icons-material/PersonAdd';
import PersonRemoveIcon from '@mui/icons-material/PersonRemoveOutlined';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useMe } from '../../api/me';
import InviteDialog from './InviteDialog';
import { RoleSelect, StatusSelect, useMemberChange } from './MemberActions';
import { useTranslation } from 'react-i18next';
import type { Member } from '../../api/types';
import ConfirmDialog from '../../components/ConfirmDialog';
import ListPage, { RowLink } from '../../components/ListPage';
import type { ListColumn } from '../../components/ListTable';
import MemberAvatar from '../../components/MemberAvatar';
import { formatDateTime } from '../../lib/format';
import { cancelInvitation, memberName, useMembers } from './api';

export function StatusChip({ status }: { status: string }) {
  const { t } = useTranslation();
  const color = status === 'active' ? 'success' : status === 'invited' || status === 'pending' ? 'info' : 'default';
  return <Chip size="small" variant="outlined" color={color} label={t(`memberStatus.${status}`, { defaultValue: status })} />;
}

export default function MemberListPage() {
  const { t } = useTranslation();
  const members = useMembers();
  const { data: me } = useMe();
  const [inviting, setInviting] = useState(false);
  const change = useMemberChange();
  const queryClient = useQueryClient();
  const [cancelling, setCancelling] = useState<Member | null>(null);
  const [busy, setBusy] = useState(false);
  const manager = me?.role === 'owner' || me?.role === 'admin';
  const isOwner = me?.role === 'owner';
  const columns: ListColumn<Member>[] = [
    {
      field: 'name',
      headerName: t('members.name'),
      sortable: true,
      minWidth: 180,
      sortValue: memberName,
      render: (row) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, height: '100%' }}>
          <MemberAvatar person={row} size={24} />
          <RowLink to={`/users/${encodeURIComponent(row.id)}`}>{memberName(row)}</RowLink>
        </Box>
      ),
    },
    { field: 'email', headerName: t('members.email'), sortable: true, minWidth: 220 },
    {
      field: 'role',
      headerName: t('members.role'),
      sortable: true,
      width: 160,
      sortValue: (row) => t(`roles.${row.role}`, { defaultValue: row.role }),
      render: (row) =>
        manager && row.id !== me?.id ? <RoleSelect member={row} canGrantOwner={isOwner} onChange={(c) => change.ask(row, c)} /> : t(`roles.${row.role}`, { defaultValue: row.role }),
    },
    {
      field: 'status',
      headerName: t('members.status'),
      sortable: true,
      width: 150,
      render: (row) =>
        manager && row.id !== me?.id && (row.role !== 'owner' || isOwner) ? <StatusSelect member={row} onChange={(c) => change.ask(row, c)} /> : <StatusChip status={row.status} />,
    },
    { field: 'created_at', headerName: t('members.createdAt'), sortable: true, width: 170, render: (row) => formatDateTime(row.created_at) },
  ];
  const actions = (row: Member) =>
    row.status === 'invited' && (row.role !== 'owner' || isOwner)
      ? [{ key: 'cancel', icon: <PersonRemoveIcon />, label: t('members.cancelInvitationOf', { name: memberName(row) }), onClick: () => setCancelling(row) }]
      : [];
  const confirmCancel = async () => {
    if (!cancelling) return;
    setBusy(true);
    try {
      await cancelInvitation(cancelling.id);
      await queryClient.invalidateQueries({ queryKey: ['members'] });
    } catch {
      /* the account client showed it */
    } finally {
      setBusy(false);
      setCancelling(null);
    }
  };
  return (
    <ListPage
      title={t('pages.members')}
      subtitle={t('members.subtitle')}
      actions={
        manager ? (
          <Button variant="contained" startIcon={<PersonAddIcon />} onClick={() => setInviting(true)}>
            {t('members.invite')}
          </Button>
        ) : undefined
      }
      result={members}
      columns={columns}
      rowKey={(row) => row.id}
      rowActions={manager ? actions : undefined}
      pageSizes={[25, 50, 100]}
      initialPageSize={50}
      sx={{ height: 'calc(100vh - 210px)', minHeight: 360 }}
      empty={t('common.noResults')}
    >
      <InviteDialog open={inviting} onClose={() => setInviting(false)} canGrantOwner={isOwner} />
      {change.dialog}
      <ConfirmDialog
        open={!!cancelling}
        title={t('members.confirmCancelTitle')}
        text={cancelling ? t('members.confirmCancel', { name: memberName(cancelling), email: cancelling.email }) : ''}
        confirmLabel={t('members.cancelInvitation')}
        destructive
        busy={busy}
        onConfirm={() => void confirmCancel()}
        onClose={() => setCancelling(null)}
      />
    </ListPage>
  );
}
