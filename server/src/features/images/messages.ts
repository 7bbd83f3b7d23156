/** Messages of the images area in both languages; engine refusal codes (engine/mitate_engine/images/errors.py) included. */
export const M = {
  zipNeedsImageType: {
    en: 'A ZIP of images is registered for image analysis (OK/NG) or image classification; choose that training type.',
    ja: '画像のZIPは画像分析（OK/NG）または画像分類として登録します。学習タイプを選択してください。',
  },
  notImageDataset: { en: 'This dataset is not an image dataset.', ja: 'このデータセットは画像データセットではありません。' },
  wrongDatasetType: { en: 'A {type} project needs a dataset registered for {type}.', ja: '{type}のプロジェクトには{type}用に登録したデータセットが必要です。' },
  notImageProject: { en: 'This project is not an image project.', ja: 'このプロジェクトは画像のプロジェクトではありません。' },
  imageNotFound: { en: 'The image does not exist.', ja: '画像が存在しません。' },
  notTraining: { en: 'The project is not training.', ja: 'プロジェクトは学習中ではありません。' },
  thresholdNeedsAnalysis: { en: 'A threshold applies to OK/NG analysis models only.', ja: 'しきい値はOK/NG分析のモデルにのみ設定できます。' },
  thresholdInput: { en: 'Give a threshold, a target miss rate or an OK percentile.', ja: 'しきい値、目標見逃し率、OKパーセンタイルのいずれかを指定してください。' },
  noNgScores: { en: 'There are no NG images in the held-out split; use a percentile of OK scores instead.', ja: '検証用データにNG画像がありません。OKスコアのパーセンタイルを使用してください。' },
  noImages: { en: 'Select an image', ja: '画像を選択してください' },
  notImageFile: { en: 'The file "{name}" is not an image (JPEG, PNG, BMP, TIFF) or ZIP.', ja: 'ファイル「{name}」は画像（JPEG、PNG、BMP、TIFF）またはZIPではありません。' },
  ingestFailed: { en: 'The ZIP could not be unpacked: {reason}', ja: 'ZIPを展開できませんでした: {reason}' },
  predictionNotFound: { en: 'The prediction does not exist.', ja: '予測が存在しません。' },
  preprocessRunNotFound: { en: 'The pre-processing run does not exist.', ja: '前処理の実行結果が見つかりません。' },
  previewTimeout: { en: 'The preview took too long; the server is busy. Try again in a moment.', ja: 'プレビューに時間がかかりすぎました。サーバーが混み合っています。しばらくしてからもう一度お試しください。' },
  preprocessRegistered: { en: 'This pre-processing result is already registered as a dataset.', ja: 'この前処理結果はすでにデータセットとして登録されています。' },
  preprocessNotReady: { en: 'The pre-processing is not finished (state: {state}).', ja: '前処理が完了していません（状態: {state}）。' },
  preprocessGone: { en: 'The pre-processed images are no longer available; run the pre-processing again.', ja: '前処理済みの画像はもう残っていません。前処理をもう一度実行してください。' },
  displayFailed: { en: 'The image could not be converted for display: {reason}', ja: '表示用に画像を変換できませんでした: {reason}' },
  // engine codes
  zip_unreadable: { en: 'The file is not a readable ZIP archive.', ja: 'ファイルは読み取り可能なZIPアーカイブではありません。' },
  zip_too_many_entries: { en: 'The ZIP has {count} entries; at most {limit} are accepted.', ja: 'ZIPのエントリー数は{count}です。最大{limit}までです。' },
  zip_too_large: { en: 'The ZIP unpacks to more than {limit_mb} MB; split it into smaller archives.', ja: 'ZIPの展開後サイズが{limit_mb} MBを超えます。小さなアーカイブに分けてください。' },
  zip_no_images: { en: 'The ZIP contains no readable images in class folders.', ja: 'ZIPのクラスフォルダーに読み取れる画像がありません。' },
  zip_layout: {
    en: 'Put the images in one folder per class (OK/ and NG/ for OK/NG analysis), optionally under train/, validation/ and test/.',
    ja: '画像はクラスごとのフォルダー（OK/NG分析ではOK/とNG/）に入れてください。train/・validation/・test/の下に置くこともできます。',
  },
  analysis_classes: { en: 'An OK/NG dataset needs an OK folder (and optionally NG); found: {found}.', ja: 'OK/NGデータセットにはOKフォルダー（必要に応じてNG）が必要です。見つかったフォルダー: {found}' },
  classification_classes: { en: 'Image classification needs at least two class folders with images; found: {found}.', ja: '画像分類には画像の入ったクラスフォルダーが2つ以上必要です。見つかったフォルダー: {found}' },
  empty_class: { en: 'The class folder "{name}" has no readable images.', ja: 'クラスフォルダー「{name}」に読み取れる画像がありません。' },
  no_ok_images: { en: 'There are no OK images to train on.', ja: '学習に使うOK画像がありません。' },
  need_both_classes: { en: '{model} needs OK and NG images in the training split.', ja: '{model}には学習用データにOK画像とNG画像の両方が必要です。' },
  too_few_images: { en: 'The training split has {count} images; at least {minimum} are needed.', ja: '学習用データの画像は{count}枚です。{minimum}枚以上必要です。' },
  weights_missing: { en: 'The backbone weights could not be loaded from {path}: {reason}', ja: 'バックボーンの重みを{path}から読み込めませんでした: {reason}' },
  unknown_algorithm: { en: 'Unknown image algorithm: {algorithm}.', ja: '不明な画像アルゴリズムです: {algorithm}' },
  model_unreadable: { en: 'The model file could not be read: {reason}', ja: 'モデルファイルを読み込めませんでした: {reason}' },
  no_input_images: { en: 'No readable images were given for prediction.', ja: '予測に使える画像がありません。' },
} as const;

export type EngineCode = Exclude<keyof typeof M, 'notImageDataset'>;
export const engineMessage = (code: string) => (M as Record<string, { en: string; ja: string }>)[code];
