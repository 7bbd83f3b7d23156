import type { LocalText } from '../../i18n/messages.js';

/** Single sign-on's messages, in both UI languages. */
export const M = {
  ssoDisabled: { en: 'Single sign-on is not configured.', ja: 'シングルサインオンは設定されていません。' },
  ssoFailed: { en: 'Single sign-on failed: {reason}', ja: 'シングルサインオンに失敗しました: {reason}' },
  ssoNoEmail: { en: 'The directory did not provide an e-mail address for this account.', ja: 'ディレクトリからこのアカウントのメールアドレスが提供されませんでした。' },
  ssoOtherDirectory: { en: 'This e-mail address belongs to an organisation of another directory.', ja: 'このメールアドレスは別のディレクトリの組織に属しています。' },
} satisfies Record<string, LocalText>;
