/** The pre-processing area's own messages, in both UI languages. */
export const M = {
  conditionExists: {
    en: 'A condition named "{name}" already exists. Confirm to overwrite it.',
    ja: '「{name}」という名前の条件はすでに存在します。上書きする場合は確認してください。',
  },
  conditionNotFound: { en: 'The preprocessing condition was not found.', ja: '前処理条件が見つかりません。' },
  runNotFound: { en: 'The temporary dataset was not found.', ja: '一時データセットが見つかりません。' },
  runNotReady: {
    en: 'The preprocessing run has not finished successfully (state: {state}), so there is nothing to register.',
    ja: '前処理がまだ正常に完了していないため（状態：{state}）、登録できるデータがありません。',
  },
  runRegistered: { en: 'This result is already registered as a dataset.', ja: 'この結果はすでにデータセットとして登録されています。' },
  runOutputGone: { en: 'The temporary dataset is no longer available; please run the condition again.', ja: '一時データセットはもう利用できません。条件をもう一度実行してください。' },
  stepInvalid: { en: 'Step {step}: {reason}', ja: 'ステップ {step}：{reason}' },
  unknownMethod: { en: 'unknown method "{method}" for {type} (allowed: {allowed})', ja: '{type} の手法「{method}」は不明です（使用可能：{allowed}）' },
  unknownProcessType: { en: 'unknown process type "{type}" (allowed: {allowed})', ja: '処理の種類「{type}」は不明です（使用可能：{allowed}）' },
  paramNotRead: {
    en: 'the parameter "{name}" is not used by {type} ({method}); it uses: {reads}',
    ja: 'パラメータ「{name}」は {type}（{method}）では使われません（使うもの：{reads}）',
  },
  paramNoneRead: { en: 'the parameter "{name}" is not used by {type} ({method}), which takes no parameters', ja: 'パラメータ「{name}」は {type}（{method}）では使われません（この手法にパラメータはありません）' },
  paramRequired: { en: 'the parameter "{name}" is required for {type} ({method})', ja: '{type}（{method}）にはパラメータ「{name}」が必要です' },
  stepsOrCondition: { en: 'Give the steps or a saved condition_id.', ja: 'ステップか保存済みの condition_id を指定してください。' },
  previewFailed: { en: '{reason}', ja: '{reason}' },
  previewTimeout: { en: 'The preview took too long. Try again on a smaller dataset.', ja: 'プレビューに時間がかかりすぎました。小さいデータセットでもう一度お試しください。' },
  fileEmpty: { en: 'The condition file is empty.', ja: '条件ファイルが空です。' },
  fileHeader: {
    en: 'The condition file must start with the header: {header}',
    ja: '条件ファイルの先頭行は次のヘッダーにしてください：{header}',
  },
  fileRow: { en: 'Row {row} of the condition file: {reason}', ja: '条件ファイルの {row} 行目：{reason}' },
  fileMissing: { en: 'Choose a condition file (condition_setting_file.csv).', ja: '条件ファイル（condition_setting_file.csv）を選択してください。' },
  noColumnsLeft: { en: 'No row is left after the condition.', ja: '条件適用後に行が残っていません。' },
  noCondition: { en: 'This dataset was not created by a preprocessing condition.', ja: 'このデータセットは前処理条件から作成されたものではありません。' },
} as const;
