import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import { ME, STATUS, mockFetch, ok, renderApp, signIn } from '../../test/utils';
import type { InvoiceDetail, PaymentInfo } from './api';

afterEach(() => {
  vi.unstubAllGlobals();
  setSession(null);
});

const invoice: InvoiceDetail = {
  id: 'i1', number: 'INV-202611-ABCDEF', name: 'INV-202611-ABCDEF', project_id: 'pp1', project_name: 'Power API', billing_cycle: 'monthly', subscription_type: 'standard', currency: 'JPY',
  bill_from: '2026-11-10', bill_to: '2026-12-09', date: '2026-11-10T00:00:00Z', due_date: '2026-11-24T00:00:00Z', payment_date: null,
  subscription_fee: 9800, infrastructure_fee: 6100, amount: 15900, amount_due: 15900, state: 'overdue', payment_method: null, reported_at: null, overdue: true,
  lines: [
    { item: 'subscription', quantity: 1, unit_price: 9800, amount: 9800, period_from: '2026-11-10', period_to: '2026-12-09' },
    { item: 'infrastructure_base', quantity: 1, unit_price: 6100, amount: 6100, period_from: '2026-11-10', period_to: '2026-12-09' },
  ],
  organisation_name: 'Kobe Power', transfer_reference: 'MITATE 1A2B3C4D', history: [{ kind: 'invoice_billed', amount: 15900, currency: 'JPY', at: '2026-11-10T00:00:00Z' }],
};
const bank = { bank_name: 'Mitate Bank', bank_code: '0999', branch_name: 'Head Office', branch_code: '001', account_type: 'organisation' as const, account_number: '1234567', account_holder: 'Mitate K.K.' };
const info = (identity: PaymentInfo['identity'], balance = 0): PaymentInfo => ({ transfer_reference: 'MITATE 1A2B3C4D', bank_account: bank, wallet: { balance, currency: 'JPY' }, identity });

// generous limits: the first render loads the shell and the area, slow on a busy machine
describe('invoices', { timeout: 300_000 }, () => {
  it('list: the state filter asks the server for the chosen state', async () => {
    signIn();
    const calls = mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/platform/admin/me': () => ok({ platform_admin: false }),
      'GET /api/billing/invoices': () => ok({ items: [invoice], total: 1 }),
    });
    const user = userEvent.setup();
    renderApp('/invoices');
    await waitFor(() => expect(calls.some((c) => c.path === '/api/billing/invoices' && c.url.searchParams.get('state') === 'all')).toBe(true), { timeout: 60_000 });
    await user.click(await screen.findByRole('combobox', { name: 'State' }, { timeout: 60_000 }));
    await user.click(await screen.findByRole('option', { name: 'Pending confirmation' }));
    await waitFor(() => expect(calls.some((c) => c.url.searchParams.get('state') === 'pending_confirmation')).toBe(true));
  });

  it("payment steps: total amount → bank transfer with the reference and account → 'Transfer completed' after a confirmation", async () => {
    signIn();
    const calls = mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/billing/invoices/i1': () => ok(invoice),
      'GET /api/billing/payment-info': () => ok(info('done')),
      'POST /api/billing/invoices/i1/transfer-completed': () => ok({ ...invoice, state: 'pending_confirmation' }),
    });
    const user = userEvent.setup();
    renderApp('/invoices/i1/payment');
    expect((await screen.findByTestId('pay-total', {}, { timeout: 60_000 })).textContent).toContain('15,900');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(screen.getByTestId('transfer-reference').textContent).toBe('MITATE 1A2B3C4D');
    expect(screen.getByText('Mitate Bank')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Transfer completed' }));
    const dialog = await screen.findByRole('dialog');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    await user.click(within(dialog).getByRole('button', { name: 'Transfer completed' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.path.endsWith('/transfer-completed'))).toBe(true));
  });

  it('payment is blocked with the SPEC texts while identity verification is not done or under review; a short wallet cannot pay', async () => {
    signIn();
    let identity: PaymentInfo['identity'] = 'not_done';
    mockFetch({
      'GET /api/users/me': () => ok(ME),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/billing/invoices/i1': () => ok(invoice),
      'GET /api/billing/payment-info': () => ok(info(identity, 100)),
    });
    const user = userEvent.setup();
    const { unmount } = renderApp('/invoices/i1/payment');
    expect((await screen.findByTestId('identity-gate', {}, { timeout: 60_000 })).textContent).toContain('Verify identity before paying.');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect((screen.getByRole('button', { name: 'Transfer completed' }) as HTMLButtonElement).disabled).toBe(true);
    await user.click(screen.getByRole('radio', { name: /Wallet/ }));
    expect((screen.getByRole('button', { name: 'Pay from the wallet' }) as HTMLButtonElement).disabled).toBe(true);
    unmount();
    identity = 'under_review';
    renderApp('/invoices/i1/payment');
    expect((await screen.findByTestId('identity-gate', {}, { timeout: 60_000 })).textContent).toContain('ID under review.');
  });
});
