import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import LinkAlert from '../../components/LinkAlert';
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
    <LinkAlert severity="warning" sx={{ mb: 2 }} data-testid="identity-gate" to="/profile" linkLabel={t('pay.toProfile')}>
      {identity === 'under_review' ? t('pay.idUnderReview') : t('pay.verifyIdentity')}
    </LinkAlert>
  );
}

/** A titled card of the billing pages; `mb` is the room below it. */
export function SectionCard({ title, mb, children }: { title: string; mb?: number; children: ReactNode }) {
  return (
    <Paper variant="outlined" sx={{ p: 2, mb }}>
      <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}

/** A titled card with its table (head and body as children), or the `empty` line when there are no rows. */
export function TableCard({ title, empty, mb, children }: { title: string; empty?: string | false; mb?: number; children: ReactNode }) {
  return (
    <SectionCard title={title} mb={mb}>
      {empty ? (
        <Typography color="text.secondary">{empty}</Typography>
      ) : (
        <Table size="small" aria-label={title}>
          {children}
        </Table>
      )}
    </SectionCard>
  );
}

/** Every payment step asks first. */
export const useConfirm = useConfirmedAction;
