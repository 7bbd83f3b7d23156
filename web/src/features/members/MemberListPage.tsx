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
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import { DataGrid, GridActionsCellItem, type GridColDef, type GridRowParams } from '@mui/x-data-grid';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import type { Member } from '../../api/types';
import ConfirmDialog from '../../components/ConfirmDialog';
import MemberAvatar from '../../components/MemberAvatar';
import PageHeader from '../../components/PageHeader';
import { useGridLocale } from '../../components/gridLocale';
import { formatDateTime } from '../../lib/format';
import { cancelInvitation, memberName, useMembers } from './api';

export function StatusChip({ status }: { status: string }) {
  const { t } = useTranslation();
  const color = status === 'active' ? 'success' : status === 'invited' || status === 'pending' ? 'info' : 'default';
  return <Chip size="small" variant="outlined" color={color} label={t(`memberStatus.${status}`, { defaultValue: status })} />;
}

export default function MemberListPage() {
  const { t } = useTranslation();
  const localeText = useGridLocale();
  const { data, isFetching } = useMembers();
  const { data: me } = useMe();
  const [inviting, setInviting] = useState(false);
  const change = useMemberChange();
  const queryClient = useQueryClient();
  const [cancelling, setCancelling] = useState<Member | null>(null);
  const [busy, setBusy] = useState(false);
  const manager = me?.role === 'owner' || me?.role === 'admin';
  const isOwner = me?.role === 'owner';
  const columns: GridColDef<Member>[] = [
    {
      field: 'name',
      headerName: t('members.name'),
      flex: 1,
      minWidth: 180,
      valueGetter: (_v, row) => memberName(row),
      renderCell: (p) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, height: '100%' }}>
          <MemberAvatar person={p.row} size={24} />
          <Link component={RouterLink} to={`/users/${encodeURIComponent(p.row.id)}`} underline="hover">
            {p.value}
          </Link>
        </Box>
      ),
    },
    { field: 'email', headerName: t('members.email'), flex: 1.2, minWidth: 220 },
    {
      field: 'role',
      headerName: t('members.role'),
      width: 160,
      valueFormatter: (v: string) => t(`roles.${v}`, { defaultValue: v }),
      renderCell: (p) =>
        manager && p.row.id !== me?.id ? (
          <RoleSelect member={p.row} canGrantOwner={isOwner} onChange={(c) => change.ask(p.row, c)} />
        ) : (
          t(`roles.${p.row.role}`, { defaultValue: p.row.role })
        ),
    },
    {
      field: 'status',
      headerName: t('members.status'),
      width: 150,
      renderCell: (p) =>
        manager && p.row.id !== me?.id && (p.row.role !== 'owner' || isOwner) ? (
          <StatusSelect member={p.row} onChange={(c) => change.ask(p.row, c)} />
        ) : (
          <StatusChip status={p.row.status} />
        ),
    },
    {
      field: 'created_at',
      headerName: t('members.createdAt'),
      width: 170,
      valueFormatter: (v: string) => formatDateTime(v),
    },
    ...(manager
      ? [
          {
            field: 'actions',
            type: 'actions' as const,
            headerName: t('common.actions'),
            width: 90,
            getActions: (p: GridRowParams<Member>) =>
              p.row.status === 'invited' && (p.row.role !== 'owner' || isOwner)
                ? [
                    <GridActionsCellItem
                      key="cancel"
                      icon={<PersonRemoveIcon />}
                      label={t('members.cancelInvitationOf', { name: memberName(p.row) })}
                      onClick={() => setCancelling(p.row)}
                    />,
                  ]
                : [],
          },
        ]
      : []),
  ];
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
    <>
      <PageHeader
        title={t('pages.members')}
        subtitle={t('members.subtitle')}
        actions={
          manager ? (
            <Button variant="contained" startIcon={<PersonAddIcon />} onClick={() => setInviting(true)}>
              {t('members.invite')}
            </Button>
          ) : undefined
        }
      />
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
      <Paper variant="outlined" sx={{ height: 'calc(100vh - 210px)', minHeight: 360 }}>
        <DataGrid
          rows={data?.items ?? []}
          columns={columns}
          loading={isFetching && !data}
          density="compact"
          disableRowSelectionOnClick
          localeText={{ ...localeText, noRowsLabel: t('common.noResults') }}
          pageSizeOptions={[25, 50, 100]}
          initialState={{ pagination: { paginationModel: { pageSize: 50 } } }}
          sx={{ border: 0 }}
        />
      </Paper>
    </>
  );
}
