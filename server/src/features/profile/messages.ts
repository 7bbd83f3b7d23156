import type { LocalText } from '../../i18n/messages.js';

/** The profile's messages (SPEC §5 field rules), in both UI languages. */
export const M = {
  accountUpdated: { en: 'Account Updated Successfully', ja: 'アカウントを更新しました' },
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
} satisfies Record<string, LocalText>;
