/** The visualization area's own messages, in both UI languages. */
export const M = {
  columnMissing: { en: 'The column "{name}" does not exist in this dataset.', ja: '列「{name}」はこのデータセットにありません。' },
  columnNotNumeric: { en: 'The column "{name}" is not numeric.', ja: '列「{name}」は数値ではありません。' },
  tooManyColumns: { en: 'Choose at most {max} columns.', ja: '列は最大 {max} 個まで選択してください。' },
  tooFewColumns: { en: 'Choose at least {min} numeric columns.', ja: '数値列を {min} 個以上選択してください。' },
  notTimeSeries: {
    en: 'This dataset has no datetime column, so it cannot be drawn as a time series.',
    ja: 'このデータセットには日時列がないため、時系列として表示できません。',
  },
  badWindow: { en: 'The start of the window must be before its end.', ja: '表示範囲の開始は終了より前にしてください。' },
} as const;
