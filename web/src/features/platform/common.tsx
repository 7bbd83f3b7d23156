import Chip from '@mui/material/Chip';
import { useTranslation } from 'react-i18next';
import { type PendingAction, useConfirmedAction } from '../../components/useConfirmedAction';
import type { Status } from './api';

export const NS = 'platform';
export const detailsPath = (id: string) => `/platform/details/${encodeURIComponent(id)}`;
export const editPath = (id: string) => `/platform/edit/${encodeURIComponent(id)}`;
/** Owners and admins manage a project (life cycle, settings, keys); the server checks the same. */
export const canManage = (me: { role: string } | undefined) => me?.role === 'owner' || me?.role === 'admin';

const COLOURS: Record<Status, 'default' | 'info' | 'success' | 'warning' | 'error' | 'primary'> = {
  draft: 'default',
  under_review: 'info',
  approved: 'primary',
  rejected: 'error',
  running: 'success',
  stopped: 'warning',
};

export function StatusChip({ status }: { status: Status }) {
  const { t } = useTranslation(NS);
  return <Chip size="small" color={COLOURS[status]} label={t(`status.${status}`)} data-status={status} />;
}

/** Every life-cycle action asks first (SPEC §4); the button says the action. */
export function useConfirm() {
  const { t } = useTranslation(NS);
  const { dialog, ask } = useConfirmedAction();
  return { dialog, ask: (a: { label: string } & Omit<PendingAction, 'title'>) => ask({ ...a, title: a.label }), t };
}
