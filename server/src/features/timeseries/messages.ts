/** Messages of time-series anomaly detection, in both languages ({name} placeholders are filled by the error handler). */
export const M = {
  noTime: {
    en: 'A time column is needed: the dataset has no datetime column. Choose a datetime column or an increasing numeric index (such as a sample number).',
    ja: '時刻列が必要です。データセットに日時列がありません。日時列または増加する数値の通し番号（サンプル番号など）を選択してください。',
  },
  badTime: { en: 'The column "{column}" cannot order the series: it is neither a date/time nor a number.', ja: '列「{column}」では系列を並べられません。日時でも数値でもありません。' },
  timeNulls: { en: 'The time column "{column}" has {count} empty or unparsable values.', ja: '時刻列「{column}」に空または読み取れない値が{count}件あります。' },
  duplicateTimes: { en: 'The time column "{column}" has {count} duplicate timestamps (first: {first}); remove or aggregate them.', ja: '時刻列「{column}」に重複した時刻が{count}件あります（最初: {first}）。削除するか集約してください。' },
  notNumeric: { en: 'The signal "{column}" is not numeric; only numeric signals can be monitored.', ja: '信号「{column}」は数値ではありません。監視できるのは数値の信号のみです。' },
  timeAsSignal: { en: 'The time column "{column}" cannot also be a signal.', ja: '時刻列「{column}」は信号として選択できません。' },
  labelAsSignal: { en: 'The label "{column}" is also among the signals; remove it from the signals.', ja: 'ラベル「{column}」が信号にも含まれています。信号から外してください。' },
  singleClass: { en: 'The label "{column}" has a single class; supervised detection needs normal and anomalous rows.', ja: 'ラベル「{column}」のクラスが1つしかありません。教師ありの検知には正常と異常の両方の行が必要です。' },
  shortNormal: {
    en: 'The normal period has {count} rows, but the windows, lags and changes of drifting signals need {warm} rows of warm-up and at least {needed} more: the detectors learn from the first 70 % of them and set their thresholds on the last 30 %. Choose a longer period, shorter windows or fewer rows of change.',
    ja: '正常期間は{count}行ですが、ウィンドウ・ラグ・ドリフト信号の変化のウォームアップに{warm}行と、さらに{needed}行以上が必要です（検出器は前半70%で学習し、残り30%でしきい値を決めます）。期間を長くするか、ウィンドウを短くするか、変化の行数を減らしてください。',
  },
  shortTrain: {
    en: 'The training part has {count} rows, but the windows, lags and changes of drifting signals need {warm} rows of warm-up and at least 10 more; choose a larger training share, shorter windows or fewer rows of change.',
    ja: '学習部分は{count}行ですが、ウィンドウ・ラグ・ドリフト信号の変化のウォームアップに{warm}行とさらに10行以上が必要です。学習の割合を増やすか、ウィンドウを短くするか、変化の行数を減らしてください。',
  },
  shortSequence: {
    en: 'The sequence autoencoder\'s window of {window} rows needs at least {needed} rows of normal period (it learns from the first 70 %, the rest sets its threshold); it has {count}. Choose a longer period or a shorter window.',
    ja: '時系列オートエンコーダの{window}行の窓には、少なくとも{needed}行の正常期間が必要です（前半70%で学習し、残りでしきい値を決めます。現在{count}行）。期間を長くするか窓を短くしてください。',
  },
  spanNeedsDatetime: { en: 'The window "{window}" is a time span; it needs a date/time column (use a number of rows instead).', ja: 'ウィンドウ「{window}」は時間幅です。日時列が必要です（行数で指定してください）。' },
  badWindow: { en: 'The window "{window}" is neither a number of rows (2 or more) nor a time span such as 30s, 5min, 1h.', ja: 'ウィンドウ「{window}」は行数（2以上）でも、30s・5min・1h のような時間幅でもありません。' },
  badResample: { en: 'The resampling period "{rule}" is not understood; write a number and a unit: ms, s, min or h (e.g. 1s, 5min).', ja: 'リサンプリングの周期「{rule}」を解釈できません。数値と単位（ms、s、min、h）で指定してください（例: 1s、5min）。' },
  resampleNeedsDatetime: { en: 'Resampling needs a date/time column; "{column}" is not one.', ja: 'リサンプリングには日時列が必要です。「{column}」は日時列ではありません。' },
  driftNotSignal: {
    en: 'The slowly drifting signal "{column}" is not among the selected signals; choose it as a signal or take it out of the drifting ones.',
    ja: 'ゆっくりドリフトする信号「{column}」が選択した信号に含まれていません。信号として選ぶか、ドリフトする信号から外してください。',
  },
  driftRowsNeeded: { en: 'Slowly drifting signals need the number of rows their change is taken over (1 or more).', ja: 'ゆっくりドリフトする信号には、変化を取る行数（1以上）を指定してください。' },
  driftRowsTooLong: {
    en: 'The change over {rows} rows needs a normal period longer than that; it has {normal} rows. Choose fewer rows or a longer normal period.',
    ja: '{rows}行の変化を使うには、それより長い正常期間が必要です（現在{normal}行）。行数を減らすか、正常期間を長くしてください。',
  },
  driftPeriodShort: {
    en: 'The suggestion of slowly drifting signals needs at least {needed} rows in the period the models learn from; it has {rows}. Choose a longer period.',
    ja: 'ゆっくりドリフトする信号の提案には、モデルが学習する期間に{needed}行以上が必要です（現在{rows}行）。期間を長くしてください。',
  },
  driftTimeout: { en: 'The suggestion of slowly drifting signals took too long; try again in a moment.', ja: 'ゆっくりドリフトする信号の提案に時間がかかりすぎました。しばらくしてからもう一度お試しください。' },
  driftFailed: { en: 'The suggestion of slowly drifting signals failed: {reason}', ja: 'ゆっくりドリフトする信号の提案に失敗しました: {reason}' },
  badRange: { en: 'The normal period needs a start before its end.', ja: '正常期間の開始は終了より前にしてください。' },
  notTimeSeries: { en: 'This project is not a time-series anomaly detection project.', ja: 'このプロジェクトは時系列異常検知のプロジェクトではありません。' },
  seriesMissing: { en: 'The scores of this model are missing; train the project again.', ja: 'このモデルのスコアがありません。もう一度学習してください。' },
  badThreshold: { en: 'The threshold must be a finite number.', ja: 'しきい値は有限の数値にしてください。' },
  // {algorithm} and {param} are catalogue names (engine/mitate_engine/messages.json), said in the same language
  paramUnknown: { en: '{algorithm}: there is no hyper-parameter "{param}".', ja: '{algorithm}：ハイパーパラメータ「{param}」はありません。' },
  paramNotNumber: { en: '{algorithm}: "{param}" must be a number.', ja: '{algorithm}：「{param}」は数値で指定してください。' },
  paramNotWhole: { en: '{algorithm}: "{param}" must be a whole number.', ja: '{algorithm}：「{param}」は整数で指定してください。' },
  paramRange: { en: '{algorithm}: "{param}" must be between {low} and {high}.', ja: '{algorithm}：「{param}」は{low}から{high}の範囲で指定してください。' },
  alarmRule: { en: '{algorithm}: the alarm rule needs k ({k}) not larger than n ({n}).', ja: '{algorithm}：警報ルールのk（{k}）はn（{n}）以下にしてください。' },
  sorted: { en: 'The rows are not in time order; training sorts them by "{column}".', ja: '行が時刻順ではありません。学習時に「{column}」で並べ替えます。' },
} as const;
