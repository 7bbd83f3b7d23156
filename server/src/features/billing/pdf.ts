import { type PdfDocument, renderPdf } from '../../pdf/index.js';
import type { BankAccount } from './settings.js';
import type { BillingService } from './service.js';
import { L } from './pdf-messages.js';

type Detail = Awaited<ReturnType<BillingService['detail']>>;
type Lang = 'en' | 'ja';

export function formatMoney(amount: number, currency: string, lang: Lang): string {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  return new Intl.NumberFormat(lang === 'ja' ? 'ja-JP' : 'en-GB', { style: 'currency', currency }).format(amount / 10 ** digits);
}

/** Dates as the page shows them by default (UTC+9, SPEC §9 offset default). */
function when(iso: string | null): string {
  if (!iso) return '—';
  const d = new Date(new Date(iso).getTime() + 9 * 3600_000);
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} (UTC+9)`;
}

/** The invoice as a PDF document model, from the same answer the invoice page shows. */
export function invoiceDocument(inv: Detail, bank: BankAccount | null, lang: Lang): PdfDocument {
  const l = L[lang];
  const m = (v: number) => formatMoney(v, inv.currency, lang);
  const blocks: PdfDocument['blocks'] = [];
  if (inv.overdue) blocks.push({ kind: 'paragraph', text: l.overdue, tone: 'warning', bold: true });
  blocks.push({
    kind: 'keyValue',
    rows: [
      { label: l.number, value: inv.number },
      { label: l.billedTo, value: inv.organisation_name },
      { label: l.project, value: inv.project_name },
      { label: l.date, value: when(inv.date) },
      { label: l.due, value: when(inv.due_date) },
      { label: l.paid, value: when(inv.payment_date) },
      { label: l.billFrom, value: inv.bill_from },
      { label: l.billTo, value: inv.bill_to },
      { label: l.cycle, value: l.cycles[inv.billing_cycle] ?? inv.billing_cycle },
      { label: l.plan, value: l.plans[inv.subscription_type] ?? inv.subscription_type },
      { label: l.state, value: l.states[inv.state] ?? inv.state },
      { label: l.method, value: inv.payment_method ? l.methods[inv.payment_method] : '—' },
      { label: l.subscriptionFee, value: m(inv.subscription_fee) },
      { label: l.infrastructureFee, value: m(inv.infrastructure_fee) },
      { label: l.amount, value: m(inv.amount) },
      { label: l.amountDue, value: m(inv.amount_due) },
    ],
  });
  blocks.push({ kind: 'heading', text: l.lines, level: 2 });
  blocks.push({
    kind: 'table',
    columns: [
      { label: l.item, weight: 3 },
      { label: l.period, weight: 2.4 },
      { label: l.quantity, align: 'right', weight: 1.4 },
      { label: l.unitPrice, align: 'right', weight: 1.4 },
      { label: l.amount, align: 'right', weight: 1.4 },
    ],
    rows: [
      ...inv.lines.map((x) => [l.items[x.item] ?? x.item, `${x.period_from} – ${x.period_to}`, new Intl.NumberFormat(lang === 'ja' ? 'ja-JP' : 'en-GB').format(x.quantity), m(x.unit_price), m(x.amount)]),
      [l.total, '', '', '', m(inv.amount)],
    ],
    emphasisRows: [inv.lines.length],
  });
  if (inv.amount_due > 0 && bank) {
    blocks.push({ kind: 'heading', text: l.payTo, level: 2 });
    blocks.push({
      kind: 'keyValue',
      rows: [
        { label: l.amountDue, value: m(inv.amount_due) },
        { label: l.reference, value: inv.transfer_reference },
        { label: l.bankName, value: bank.bank_name },
        { label: l.bankCode, value: bank.bank_code },
        { label: l.branchName, value: bank.branch_name },
        { label: l.branchCode, value: bank.branch_code },
        { label: l.accountType, value: l.accountTypes[bank.account_type] },
        { label: l.accountNumber, value: bank.account_number },
        { label: l.accountHolder, value: bank.account_holder },
      ],
    });
  }
  return {
    title: `${l.title} ${inv.number}`,
    subtitle: `${inv.organisation_name} · ${inv.project_name}`,
    language: lang,
    header: 'Mitate',
    footer: l.footer.replace('{currency}', inv.currency),
    author: 'Mitate',
    subject: `${l.title} ${inv.number}`,
    blocks,
  };
}

export const invoicePdf = (inv: Detail, bank: BankAccount | null, lang: Lang) => renderPdf(invoiceDocument(inv, bank, lang));
