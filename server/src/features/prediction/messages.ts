/** Messages of the prediction area, in both languages. */
export const M = {
  notFound: { en: 'The prediction does not exist.', ja: '予測が見つかりません。' },
  notDone: { en: 'The prediction has not finished yet.', ja: '予測はまだ終わっていません。' },
  noModel: { en: 'Please choose a trained model.', ja: '学習済みのモデルを選択してください。' },
  noDataset: { en: 'Please choose an inference dataset.', ja: '推論用データセットを選択してください。' },
  missingColumn: { en: 'The feature column "{column}" is missing from the inference dataset.', ja: '推論用データセットに説明変数の列「{column}」がありません。' },
  notNumeric: { en: 'The column "{column}" must be numeric, as in the training data.', ja: '列「{column}」は学習データと同じく数値である必要があります。' },
  unseenCategory: {
    en: 'The column "{column}" holds the category "{value}" that the training data did not have.',
    ja: '列「{column}」に学習データになかったカテゴリ「{value}」があります。',
  },
  manifestMissing: { en: 'The model files are missing; train the model again.', ja: 'モデルのファイルがありません。もう一度学習してください。' },
} as const;
