import type { LocalText } from '../../i18n/messages.js';
import { AppError } from '../../http/errors.js';

/** The account area's own messages (SPEC §5, §8), in both UI languages. */
export const M = {
  linkSent: {
    en: 'If an account exists for this e-mail address, we have sent it a message. Please check your inbox.',
    ja: 'このメールアドレスのアカウントが存在する場合は、メールを送信しました。受信トレイをご確認ください。',
  },
  linkInvalid: {
    en: 'This link is invalid, has expired or has already been used. Please request a new one.',
    ja: 'このリンクは無効、期限切れ、または使用済みです。新しいリンクをリクエストしてください。',
  },
  emailVerified: { en: 'Your e-mail address is verified. You can sign in now.', ja: 'メールアドレスが確認されました。サインインできます。' },
  passwordReset: { en: 'Your password has been changed. Please sign in with the new password.', ja: 'パスワードを変更しました。新しいパスワードでサインインしてください。' },
  passwordChanged: { en: 'Your password has been changed.', ja: 'パスワードを変更しました。' },
  currentPasswordWrong: { en: 'The current password is incorrect.', ja: '現在のパスワードが正しくありません。' },
  passwordSame: { en: 'The new password must differ from the current one.', ja: '新しいパスワードは現在のパスワードと異なるものにしてください。' },
  passwordMismatch: { en: 'Passwords do not match.', ja: 'パスワードが一致しません。' },
  tooManyAttempts: {
    en: 'Too many failed sign-in attempts. Please try again in {minutes} minutes or reset your password.',
    ja: 'サインインの失敗が多すぎます。{minutes}分後にもう一度お試しいただくか、パスワードを再設定してください。',
  },
  tooManyRequests: {
    en: 'Too many requests from your network. Please try again in {minutes} minutes.',
    ja: 'お使いのネットワークからのリクエストが多すぎます。{minutes}分後にもう一度お試しください。',
  },
  accountNotActivated: { en: 'This account has not been activated yet. Please use the link in your invitation e-mail.', ja: 'このアカウントはまだ有効化されていません。招待メールのリンクをご利用ください。' },
  accountDisabled: { en: 'This account has been disabled. Please contact an administrator of your organisation.', ja: 'このアカウントは無効化されています。組織の管理者にお問い合わせください。' },
} satisfies Record<string, LocalText>;

/** An account error whose stable code (detail.error) is the message's name, so clients can tell them apart. */
export class AccountError extends AppError {
  constructor(
    status: number,
    private readonly name_: keyof typeof M,
    params: Record<string, string | number> = {},
    field?: string,
  ) {
    super(status, M[name_], params, field);
  }
  override get code(): string {
    return this.name_.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  }
}
