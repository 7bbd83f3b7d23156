/** Messages of the images area in both languages. The engine's refusals (EngineError in engine/mitate_engine/images) are
 * codes of the engine catalogue (engine/mitate_engine/messages.json), rendered by engineErrorMessage(). */
export const M = {
  zipNeedsImageType: {
    en: 'A ZIP of images is registered for image analysis (OK/NG) or image classification; choose that training type.',
    ja: '画像のZIPは画像分析（OK/NG）または画像分類として登録します。学習タイプを選択してください。',
  },
  notImageDataset: { en: 'This dataset is not an image dataset.', ja: 'このデータセットは画像データセットではありません。' },
  wrongDatasetType: { en: 'A {type} project needs a dataset registered for {type}.', ja: '{type}のプロジェクトには{type}用に登録したデータセットが必要です。' },
  notImageProject: { en: 'This project is not an image project.', ja: 'このプロジェクトは画像のプロジェクトではありません。' },
  reportThresholdInForce: {
    en: 'This report was made at training, at the threshold {trained}. The threshold in force is {current} ({rule}); on the test images it gives: miss rate {miss}, over-detection rate {over}, accuracy {accuracy}, F1 {f1}. The figures below are those at {trained}.',
    ja: 'このレポートは学習時のしきい値 {trained} で作成されました。現在のしきい値は {current}（{rule}）で、テスト画像では見逃し率 {miss}、過検出率 {over}、正解率 {accuracy}、F1 {f1} です。以下の数値はしきい値 {trained} でのものです。',
  },
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
} as const;

