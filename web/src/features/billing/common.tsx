import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { useConfirmedAction } from '../../components/useConfirmedAction';
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
export const useConfirm = useConfirmedAction;
