/** Messages of invoices and payments, in both languages ({name} placeholders are filled by the error handler). */
export const M = {
  // SPEC §8, word for word in English
  projectLocked: { en: 'Project locked for unpaid invoice.', ja: '未払いの請求書があるため、プロジェクトはロックされています。', code: 'project_locked' },
  verifyIdentity: { en: 'Verify identity before paying.', ja: 'お支払いの前に本人確認を行ってください。', code: 'identity_not_verified' },
  idUnderReview: { en: 'ID under review.', ja: '本人確認書類の審査中です。', code: 'identity_under_review' },
  invoiceNotFound: { en: 'The invoice does not exist.', ja: '請求書が見つかりません。', code: 'invoice_not_found' },
  topupNotFound: { en: 'The top-up does not exist.', ja: 'チャージが見つかりません。', code: 'topup_not_found' },
  notPayable: { en: 'This invoice cannot be paid now (it is {state}).', ja: 'この請求書は現在お支払いできません（状態: {state}）。', code: 'invoice_not_payable' },
  notPending: { en: 'Only a payment waiting for confirmation can be confirmed or returned (it is {state}).', ja: '確認待ちの支払いのみ確認・差し戻しできます（状態: {state}）。', code: 'payment_not_pending' },
  walletShort: { en: 'The wallet balance ({balance}) is less than the amount due ({due}). Top up the wallet or pay by bank transfer.', ja: 'ウォレット残高（{balance}）が請求額（{due}）に足りません。ウォレットにチャージするか銀行振込でお支払いください。', code: 'wallet_short' },
  bankNotConfigured: { en: 'The platform bank account is not configured; bank transfer is not available. A platform administrator sets it in Platform settings (or MITATE_BANK_*).', ja: 'プラットフォームの振込先口座が設定されていません。銀行振込は利用できません。プラットフォーム管理者がプラットフォーム設定（または MITATE_BANK_*）で設定します。', code: 'bank_not_configured' },
  topupAmount: { en: 'Enter a whole amount from 1 to {max}.', ja: '1から{max}までの整数の金額を入力してください。', code: 'topup_amount' },
};

/** State words for messages that name a state. */
export const STATE_WORDS: Record<string, { en: string; ja: string }> = {
  billed: { en: 'billed', ja: '請求済み' },
  pending_confirmation: { en: 'pending confirmation', ja: '確認待ち' },
  cleared: { en: 'cleared', ja: '支払済み' },
  overdue: { en: 'overdue', ja: '期限超過' },
  rejected: { en: 'returned', ja: '差し戻し' },
};
