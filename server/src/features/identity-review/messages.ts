import type { LocalText } from '../../i18n/messages.js';

/** The identity review's messages, in both UI languages. */
export const M = {
  rejectReasonRequired: { en: 'Please give the reason for the rejection.', ja: '却下の理由を入力してください。' },
  identityNotFound: { en: 'The identity verification does not exist.', ja: '本人確認の申請が存在しません。' },
  notPlatformAdmin: { en: 'Only platform administrators can review identity documents.', ja: '本人確認書類を審査できるのはプラットフォーム管理者のみです。' },
  reviewNotPending: { en: 'This identity verification has already been reviewed.', ja: 'この本人確認はすでに審査済みです。' },
} satisfies Record<string, LocalText>;
