import type { LocalText } from '../../i18n/messages.js';

/** The members' messages, in both UI languages. */
export const M = {
  alreadyMember: { en: 'This person is already a member of an organisation.', ja: 'この方はすでに組織のメンバーです。' },
  invited: { en: 'Invitation sent to {email}.', ja: '{email} に招待を送信しました。' },
  memberUpdated: { en: 'Member updated successfully.', ja: 'メンバーを更新しました。' },
  invitationCancelled: { en: 'The invitation to {email} was cancelled.', ja: '{email} への招待を取り消しました。' },
  notAnInvitation: { en: 'Only an invitation that has not been accepted can be cancelled.', ja: '取り消せるのは、まだ承諾されていない招待だけです。' },
  lastOwner: { en: 'The organisation must keep at least one active owner.', ja: '組織には有効なオーナーが少なくとも1人必要です。' },
  notYourself: { en: 'You cannot change your own role or status.', ja: '自分自身のロールやステータスは変更できません。' },
  onlyOwnerGrantsOwner: { en: 'Only an owner can grant or change the owner role.', ja: 'オーナーのロールを付与・変更できるのはオーナーのみです。' },
  oneField: { en: 'Send exactly one field to change: role or status.', ja: '変更する項目を1つだけ送信してください（ロールまたはステータス）。' },
  photoNotImage: { en: 'The photo must be a JPEG, PNG or WebP picture.', ja: '写真はJPEG、PNGまたはWebPの画像にしてください。' },
  photoRequired: { en: 'Choose a picture to upload.', ja: 'アップロードする画像を選んでください。' },
  photoSaved: { en: 'Your photo was saved.', ja: '写真を保存しました。' },
  photoRemoved: { en: 'Your photo was removed.', ja: '写真を削除しました。' },
  photoTooLarge: { en: 'File size must be less than {size}.', ja: 'ファイルサイズは{size}未満にしてください。' },
} satisfies Record<string, LocalText>;
