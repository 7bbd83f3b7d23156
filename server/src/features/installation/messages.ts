/** Messages of the installation settings, in both languages. */
export const M = {
  notPlatformAdmin: { en: 'Only platform administrators can change the installation settings.', ja: 'インストール設定を変更できるのはプラットフォーム管理者のみです。', code: 'platform_admin_only' },
  bankNameRequired: { en: 'Bank name is required.', ja: '銀行名は必須です。' },
  bankCodeFormat: { en: 'The bank code is 4 digits.', ja: '銀行コードは4桁の数字です。' },
  branchNameRequired: { en: 'Branch name is required.', ja: '支店名は必須です。' },
  branchCodeFormat: { en: 'The branch code is 3 digits.', ja: '支店コードは3桁の数字です。' },
  accountNumberFormat: { en: 'The account number is 1 to 8 digits.', ja: '口座番号は1〜8桁の数字です。' },
  accountHolderRequired: { en: 'Account holder is required.', ja: '口座名義は必須です。' },
};
