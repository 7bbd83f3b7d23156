import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isOneOf, type Member } from '../../api/types';
import ConfirmDialog from '../../components/ConfirmDialog';
import { memberName, ROLES, updateMember, type MemberUpdate } from './api';

type Role = NonNullable<MemberUpdate['role']>;
type Status = NonNullable<MemberUpdate['status']>;
type Change = { field: 'role'; value: Role } | { field: 'status'; value: Status };
const STATUSES = ['active', 'disabled'] as const satisfies readonly Status[];

/** Role and status selects; each change asks for confirmation first (SPEC §6). */
export function useMemberChange() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [pending, setPending] = useState<{ member: Member; change: Change } | null>(null);
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    if (!pending) return;
    setBusy(true);
    try {
      await updateMember(pending.member.id, pending.change.field === 'role' ? { role: pending.change.value } : { status: pending.change.value });
      await queryClient.invalidateQueries({ queryKey: ['members'] });
    } catch {
      /* the account client showed it */
    } finally {
      setBusy(false);
      setPending(null);
    }
  };
  const label = (c: Change) => (c.field === 'role' ? t(`roles.${c.value}`) : t(`memberStatus.${c.value}`));
  const dialog = (
    <ConfirmDialog
      open={!!pending}
      title={pending?.change.field === 'role' ? t('members.confirmRoleTitle') : t('members.confirmStatusTitle')}
      text={pending ? t(pending.change.field === 'role' ? 'members.confirmRole' : 'members.confirmStatus', { name: memberName(pending.member), value: label(pending.change) }) : ''}
      confirmLabel={t('members.confirm')}
      destructive={pending?.change.value === 'disabled'}
      busy={busy}
      onConfirm={() => void confirm()}
      onClose={() => setPending(null)}
    />
  );
  return { ask: (member: Member, change: Change) => setPending({ member, change }), dialog };
}

export function RoleSelect({ member, onChange, canGrantOwner, disabled }: { member: Member; onChange: (c: Change) => void; canGrantOwner: boolean; disabled?: boolean }) {
  const { t } = useTranslation();
  return (
    <TextField
      select
      size="small"
      variant="standard"
      value={member.role}
      disabled={disabled || (member.role === 'owner' && !canGrantOwner)}
      onChange={(e) => isOneOf(ROLES, e.target.value) && onChange({ field: 'role', value: e.target.value })}
      slotProps={{ htmlInput: { 'aria-label': t('members.roleOf', { name: memberName(member) }) } }}
      sx={{ minWidth: 130 }}
    >
      {ROLES.filter((r) => r !== 'owner' || canGrantOwner || member.role === 'owner').map((r) => (
        <MenuItem key={r} value={r}>
          {t(`roles.${r}`)}
        </MenuItem>
      ))}
    </TextField>
  );
}

export function StatusSelect({ member, onChange, disabled }: { member: Member; onChange: (c: Change) => void; disabled?: boolean }) {
  const { t } = useTranslation();
  const options = member.status === 'invited' ? ['invited', 'disabled'] : ['active', 'disabled'];
  return (
    <TextField
      select
      size="small"
      variant="standard"
      value={member.status}
      disabled={disabled}
      onChange={(e) => isOneOf(STATUSES, e.target.value) && onChange({ field: 'status', value: e.target.value })}
      slotProps={{ htmlInput: { 'aria-label': t('members.statusOf', { name: memberName(member) }) } }}
      sx={{ minWidth: 120 }}
    >
      {options.map((s) => (
        <MenuItem key={s} value={s} disabled={s === 'invited'}>
          {t(`memberStatus.${s}`)}
        </MenuItem>
      ))}
    </TextField>
  );
}
