import Chip from '@mui/material/Chip';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import ConfirmDialog from '../../components/ConfirmDialog';
import { showSnackbar } from '../../lib/feedback';
import type { Status } from './api';

export const NS = 'platform';
export const detailsPath = (id: string) => `/platform/details/${encodeURIComponent(id)}`;

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

/** Every life-cycle action asks first (SPEC §4). */
export function useConfirm() {
  const { t } = useTranslation(NS);
  const [pending, setPending] = useState<{ text: string; label: string; destructive?: boolean; run: () => Promise<unknown>; done: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const dialog = (
    <ConfirmDialog
      open={!!pending}
      title={pending?.label ?? ''}
      text={pending?.text ?? ''}
      confirmLabel={pending?.label ?? ''}
      destructive={pending?.destructive}
      busy={busy}
      onClose={() => setPending(null)}
      onConfirm={async () => {
        if (!pending) return;
        setBusy(true);
        try {
          await pending.run();
          showSnackbar(pending.done);
          setPending(null);
        } catch {
          /* the error dialog already shows why */
        } finally {
          setBusy(false);
        }
      }}
    />
  );
  return { dialog, ask: setPending, t };
}
