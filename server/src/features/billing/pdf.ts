import { type PdfDocument, renderPdf } from '../../pdf/index.js';
import type { BankAccount } from './settings.js';
import type { BillingService } from './service.js';

type Detail = Awaited<ReturnType<BillingService['detail']>>;
type Lang = 'en' | 'ja';

/** The invoice page's labels, in both languages (the PDF prints the same data as the page). */
const L = {
  en: {
    title: 'Invoice',
    number: 'Invoice number',
    billedTo: 'Billed to',
    project: 'Hosted API',
    date: 'Date',
    due: 'Due date',
    paid: 'Payment date',
    billFrom: 'Bill from',
    billTo: 'Bill to',
    cycle: 'Billing cycle',
    plan: 'Subscription type',
    state: 'State',
    method: 'Payment method',
    subscriptionFee: 'Subscription fee',
    infrastructureFee: 'Infrastructure fee',
    amount: 'Amount',
    amountDue: 'Amount due',
    lines: 'Line items',
    item: 'Item',
    period: 'Period',
    quantity: 'Quantity',
    unitPrice: 'Unit price',
    total: 'Total',
    payTo: 'Bank transfer',
    reference: 'Transfer reference (transferor name)',
    bankName: 'Bank name',
    bankCode: 'Bank code',
    branchName: 'Branch name',
    branchCode: 'Branch code',
    accountType: 'Account type',
    accountNumber: 'Account number',
    accountHolder: 'Account holder',
    accountTypes: { individual: 'Individual', organisation: 'Organisation' },
    states: { billed: 'Billed', pending_confirmation: 'Pending confirmation', cleared: 'Cleared', overdue: 'Overdue' },
    cycles: { monthly: 'Monthly', yearly: 'Yearly' },
    plans: { free: 'Free', standard: 'Standard', premium: 'Premium' } as Record<string, string>,
    methods: { bank_transfer: 'Bank transfer', wallet: 'Wallet' },
    items: { subscription: 'Subscription', infrastructure_base: 'Infrastructure (base)', requests_over_plan: 'Requests beyond the plan (per million)', compute_hours: 'Compute hours' } as Record<string, string>,
    overdue: 'This invoice is past its due date: the hosted API is locked until the payment is confirmed.',
    footer: 'Mitate — amounts in {currency}',
  },
  ja: {
    title: '請求書',
    number: '請求書番号',
    billedTo: '請求先',
    project: 'ホスティングAPI',
    date: '発行日',
    due: '支払期限',
    paid: '支払日',
    billFrom: '請求期間（開始）',
    billTo: '請求期間（終了）',
    cycle: '請求サイクル',
    plan: 'サブスクリプション種別',
    state: '状態',
    method: '支払方法',
    subscriptionFee: 'サブスクリプション料金',
    infrastructureFee: 'インフラ料金',
    amount: '請求金額',
    amountDue: '未払金額',
    lines: '明細',
    item: '項目',
    period: '期間',
    quantity: '数量',
    unitPrice: '単価',
    total: '合計',
    payTo: 'お振込先',
    reference: '振込参照番号（振込依頼人名）',
    bankName: '銀行名',
    bankCode: '銀行コード',
    branchName: '支店名',
    branchCode: '支店コード',
    accountType: '口座種別',
    accountNumber: '口座番号',
    accountHolder: '口座名義',
    accountTypes: { individual: '個人', organisation: '法人' },
    states: { billed: '請求済み', pending_confirmation: '確認待ち', cleared: '支払済み', overdue: '期限超過' },
    cycles: { monthly: '月次', yearly: '年次' },
    plans: { free: '無料', standard: 'スタンダード', premium: 'プレミアム' } as Record<string, string>,
    methods: { bank_transfer: '銀行振込', wallet: 'ウォレット' },
    items: { subscription: 'サブスクリプション', infrastructure_base: 'インフラ（基本）', requests_over_plan: 'プラン超過リクエスト（100万件あたり）', compute_hours: '計算時間' } as Record<string, string>,
    overdue: 'この請求書は支払期限を過ぎています。お支払いが確認されるまで、ホスティングAPIはロックされます。',
    footer: 'Mitate — 金額の通貨: {currency}',
  },
};

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
