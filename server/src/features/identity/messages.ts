import type { LocalText } from '../../i18n/messages.js';

/** Identity verification's messages (SPEC §4), in both UI languages. */
export const M = {
  idImagesRequired: { en: 'Please choose both ID images (front and back).', ja: '身分証明書の画像を両方（表面と裏面）選択してください。' },
  idNotImage: { en: 'The ID image must be a JPEG or PNG picture.', ja: '身分証明書の画像はJPEGまたはPNGにしてください。' },
  idTooLarge: { en: 'File size must be less than {size}.', ja: 'ファイルサイズは{size}未満にしてください。' },
  idUnderReview: { en: 'ID under review', ja: '本人確認書類を審査中です' },
  idAlreadyDone: { en: 'Your identity is already verified.', ja: '本人確認はすでに完了しています。' },
  verifyBeforePaying: { en: 'Please verify your identity before paying.', ja: 'お支払いの前に本人確認を行ってください。' },
} satisfies Record<string, LocalText>;
