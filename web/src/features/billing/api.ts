import { useQuery } from '@tanstack/react-query';
import { apiBlob } from '../../api/client';
import type { components } from '../../api/schema';
import { answer, http, per } from '../../api/typed';
import { saveBlob } from '../../lib/browser';

/** Shapes come from the server's OpenAPI document (server/src/features/billing/schemas.ts). */
type S = components['schemas'];
export type Invoice = S['Invoice'];
export type InvoiceDetail = S['InvoiceDetail'];
export type PaymentInfo = S['PaymentInfo'];
export type BankAccount = S['BankAccount'];
export type InvoiceState = Invoice['state'];

export const STATES: InvoiceState[] = ['billed', 'pending_confirmation', 'cleared', 'overdue'];

const enc = encodeURIComponent;
export const billingKey = ['billing'] as const;

export const useInvoices = (state: InvoiceState | 'all') =>
  useQuery({ queryKey: [...billingKey, 'invoices', state], queryFn: () => answer(http.GET('/api/billing/invoices', { params: { query: { state, page_size: 200 } } })) });
export const useInvoice = (id: string) => useQuery({ queryKey: [...billingKey, 'invoice', id], queryFn: () => answer(http.GET('/api/billing/invoices/{id}', { params: { path: { id } } })) });
export const usePaymentInfo = () => useQuery({ queryKey: [...billingKey, 'payment-info'], queryFn: () => answer(http.GET('/api/billing/payment-info')) });
export const useWallet = () => useQuery({ queryKey: [...billingKey, 'wallet'], queryFn: () => answer(http.GET('/api/billing/wallet')) });
export const usePending = () => useQuery({ queryKey: [...billingKey, 'pending'], queryFn: () => answer(http.GET('/api/billing/admin/pending')) });
export const useProjectLock = (projectId: string) =>
  useQuery({ queryKey: [...billingKey, 'lock', projectId], queryFn: () => answer(http.GET('/api/billing/projects/{id}/lock', { params: { path: { id: projectId } }, ...per({ silent: true }) })), enabled: !!projectId });
export const useIsPlatformAdmin = () =>
  useQuery({ queryKey: ['platform', 'admin'], queryFn: () => answer(http.GET('/api/platform/admin/me')), staleTime: 5 * 60_000 });

export const transferCompleted = (id: string) => answer(http.POST('/api/billing/invoices/{id}/transfer-completed', { params: { path: { id } } }));
export const payByWallet = (id: string) => answer(http.POST('/api/billing/invoices/{id}/pay-wallet', { params: { path: { id } } }));
export const reportTopup = (amount: number) => answer(http.POST('/api/billing/wallet/topups', { body: { amount } }));
export const decideInvoice = (id: string, decision: 'confirm' | 'return') => answer(http.POST('/api/billing/admin/invoices/{id}/decision', { params: { path: { id } }, body: { decision } }));
export const decideTopup = (id: string, decision: 'confirm' | 'return') => answer(http.POST('/api/billing/admin/topups/{id}/decision', { params: { path: { id } }, body: { decision } }));
export const runSweep = () => answer(http.POST('/api/billing/admin/sweep'));
export async function downloadPdf(inv: Invoice, lang: string) {
  const { blob, fileName } = await apiBlob(`/api/billing/invoices/${enc(inv.id)}/pdf?lang=${lang === 'ja' ? 'ja' : 'en'}`, `${inv.number}.pdf`);
  saveBlob(blob, fileName);
}

/** Digits after the decimal point of a currency (JPY 0, most 2): amounts travel as integer minor units. */
export function minorDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}
export function money(amount: number, currency: string, lang: string): string {
  return new Intl.NumberFormat(lang === 'ja' ? 'ja-JP' : 'en-GB', { style: 'currency', currency }).format(amount / 10 ** minorDigits(currency));
}
