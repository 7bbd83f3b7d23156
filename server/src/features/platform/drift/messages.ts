/** Messages of the drift checks of hosted APIs, in both languages. */
export const D = {
  running: { en: 'A drift check of this API is already running.', ja: 'このAPIのドリフト確認はすでに実行中です。', code: 'drift_check_running' },
  noSamples: {
    en: 'No answered request of the last {hours} hours has been sampled yet; call the API first.',
    ja: '直近{hours}時間に応答したリクエストのサンプルがまだありません。先にAPIを呼び出してください。',
    code: 'drift_no_samples',
  },
  noTrainingData: {
    en: 'The training data of this model is no longer there; its inputs cannot be compared.',
    ja: 'このモデルの学習データがもうないため、入力を比較できません。',
    code: 'drift_training_data_missing',
  },
  noOkScores: {
    en: 'This image model has no validation OK scores to compare its served scores with.',
    ja: 'この画像モデルには、配信したスコアと比較する検証用OK画像のスコアがありません。',
    code: 'drift_ok_scores_missing',
  },
  interrupted: { en: 'its job was interrupted (the server restarted).', ja: 'ジョブが中断されました（サーバーが再起動しました）。', code: 'drift_check_interrupted' },
  failed: { en: 'The drift check failed: {reason}', ja: 'ドリフト確認に失敗しました: {reason}', code: 'drift_check_failed' },
};
