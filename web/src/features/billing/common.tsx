import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import ConfirmDialog from '../../components/ConfirmDialog';
import { showSnackbar } from '../../lib/feedback';
import type { InvoiceState, PaymentInfo } from './api';

export const NS = 'billing';
export const invoicePath = (id: string) => `/invoices/${encodeURIComponent(id)}`;

const COLOURS: Record<InvoiceState, 'info' | 'warning' | 'success' | 'error'> = { billed: 'info', pending_confirmation: 'warning', cleared: 'success', overdue: 'error' };

export function StateChip({ state }: { state: InvoiceState }) {
  const { t } = useTranslation(NS);
  return <Chip size="small" color={COLOURS[state]} label={t(`state.${state}`)} data-state={state} />;
}

/** SPEC §4, §8: payment is blocked while identity verification is not done or under review. */
export function IdentityGate({ identity }: { identity: PaymentInfo['identity'] | undefined }) {
  const { t } = useTranslation(NS);
  if (!identity || identity === 'done') return null;
  return (
    <Alert
      severity="warning"
      sx={{ mb: 2 }}
      data-testid="identity-gate"
      action={
        <Button component={RouterLink} to="/profile" color="inherit" size="small">
          {t('pay.toProfile')}
        </Button>
      }
    >
      {identity === 'under_review' ? t('pay.idUnderReview') : t('pay.verifyIdentity')}
    </Alert>
  );
}

/** Every payment step asks first. */
export function useConfirm() {
  const [pending, setPending] = useState<{ title: string; text: string; run: () => Promise<unknown>; done: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const dialog = (
    <ConfirmDialog
      open={!!pending}
      title={pending?.title ?? ''}
      text={pending?.text ?? ''}
      confirmLabel={pending?.title ?? ''}
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
  return { dialog, ask: setPending };
}
