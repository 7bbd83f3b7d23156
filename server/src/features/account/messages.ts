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
  alreadyMember: { en: 'This person is already a member of an organisation.', ja: 'この方はすでに組織のメンバーです。' },
  invited: { en: 'Invitation sent to {email}.', ja: '{email} に招待を送信しました。' },
  memberUpdated: { en: 'Member updated successfully.', ja: 'メンバーを更新しました。' },
  invitationCancelled: { en: 'The invitation to {email} was cancelled.', ja: '{email} への招待を取り消しました。' },
  notAnInvitation: { en: 'Only an invitation that has not been accepted can be cancelled.', ja: '取り消せるのは、まだ承諾されていない招待だけです。' },
  accountUpdated: { en: 'Account Updated Successfully', ja: 'アカウントを更新しました' },
  lastOwner: { en: 'The organisation must keep at least one active owner.', ja: '組織には有効なオーナーが少なくとも1人必要です。' },
  notYourself: { en: 'You cannot change your own role or status.', ja: '自分自身のロールやステータスは変更できません。' },
  onlyOwnerGrantsOwner: { en: 'Only an owner can grant or change the owner role.', ja: 'オーナーのロールを付与・変更できるのはオーナーのみです。' },
  oneField: { en: 'Send exactly one field to change: role or status.', ja: '変更する項目を1つだけ送信してください（ロールまたはステータス）。' },
  required: { en: 'This field is required.', ja: 'この項目は必須です。' },
  accountNameChars: { en: 'Account name must contain letters and digits.', ja: 'アカウント名には英字と数字の両方を含めてください。' },
  digitsOnly: { en: 'This cannot be digits only.', ja: '数字のみにはできません。' },
  birthDate: { en: 'Please enter a valid date of birth.', ja: '有効な生年月日を入力してください。' },
  phone: { en: 'Please enter a valid phone number.', ja: '有効な電話番号を入力してください。' },
  postCode: { en: 'Please enter a valid post code.', ja: '有効な郵便番号を入力してください。' },
  email: { en: 'Please enter a valid e-mail address.', ja: '有効なメールアドレスを入力してください。' },
  orgEmail: { en: 'Please enter a valid organisation e-mail address.', ja: '有効な組織のメールアドレスを入力してください。' },
  orgPhone: { en: 'Please enter a valid organisation phone number.', ja: '有効な組織の電話番号を入力してください。' },
  website: { en: 'Please enter a valid URL (for example https://example.com).', ja: '有効なURLを入力してください（例: https://example.com）。' },
  country: { en: 'Please choose a country.', ja: '国を選択してください。' },
  size: { en: 'Please choose the organisation size.', ja: '組織の規模を選択してください。' },
  tooLong: { en: 'This is too long (at most {max} characters).', ja: '長すぎます（最大{max}文字）。' },
  idImagesRequired: { en: 'Please choose both ID images (front and back).', ja: '身分証明書の画像を両方（表面と裏面）選択してください。' },
  idNotImage: { en: 'The ID image must be a JPEG or PNG picture.', ja: '身分証明書の画像はJPEGまたはPNGにしてください。' },
  idTooLarge: { en: 'File size must be less than {size}.', ja: 'ファイルサイズは{size}未満にしてください。' },
  photoNotImage: { en: 'The photo must be a JPEG, PNG or WebP picture.', ja: '写真はJPEG、PNGまたはWebPの画像にしてください。' },
  photoRequired: { en: 'Choose a picture to upload.', ja: 'アップロードする画像を選んでください。' },
  photoSaved: { en: 'Your photo was saved.', ja: '写真を保存しました。' },
  photoRemoved: { en: 'Your photo was removed.', ja: '写真を削除しました。' },
  idUnderReview: { en: 'ID under review', ja: '本人確認書類を審査中です' },
  idAlreadyDone: { en: 'Your identity is already verified.', ja: '本人確認はすでに完了しています。' },
  verifyBeforePaying: { en: 'Please verify your identity before paying.', ja: 'お支払いの前に本人確認を行ってください。' },
  rejectReasonRequired: { en: 'Please give the reason for the rejection.', ja: '却下の理由を入力してください。' },
  identityNotFound: { en: 'The identity verification does not exist.', ja: '本人確認の申請が存在しません。' },
  notPlatformAdmin: { en: 'Only platform administrators can review identity documents.', ja: '本人確認書類を審査できるのはプラットフォーム管理者のみです。' },
  reviewNotPending: { en: 'This identity verification has already been reviewed.', ja: 'この本人確認はすでに審査済みです。' },
  ssoDisabled: { en: 'Single sign-on is not configured.', ja: 'シングルサインオンは設定されていません。' },
  ssoFailed: { en: 'Single sign-on failed: {reason}', ja: 'シングルサインオンに失敗しました: {reason}' },
  ssoNoEmail: { en: 'The directory did not provide an e-mail address for this account.', ja: 'ディレクトリからこのアカウントのメールアドレスが提供されませんでした。' },
  ssoOtherDirectory: { en: 'This e-mail address belongs to an organisation of another directory.', ja: 'このメールアドレスは別のディレクトリの組織に属しています。' },
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
