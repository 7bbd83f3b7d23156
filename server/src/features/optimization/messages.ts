import { engineCodes, engineTexts } from '../../i18n/engine-errors.js';
import type { LocalText } from '../../i18n/messages.js';

/** Optimisation messages in both languages. */
export const M = {
  projectNotFound: { en: 'The optimization project does not exist.', ja: '最適化プロジェクトが存在しません。' },
  runNotFound: { en: 'This algorithm has not been run for the project.', ja: 'このアルゴリズムはこのプロジェクトで実行されていません。' },
  notDone: { en: 'The optimization has not finished yet.', ja: '最適化はまだ終了していません。' },
  nameRequired: { en: 'Please enter a project name.', ja: 'プロジェクト名を入力してください。' },
  noModel: { en: 'At least one model must be selected', ja: 'モデルを1つ以上選択してください' },
  modelNotTrained: { en: 'The model "{model}" has not been trained (or its files were deleted).', ja: 'モデル「{model}」は学習されていないか、ファイルが削除されています。' },
  modelType: { en: 'The model "{model}" is not a regression or soft-sensor model.', ja: 'モデル「{model}」は回帰またはソフトセンサーのモデルではありません。' },
  sameDataset: { en: 'All models must come from the same source dataset.', ja: 'すべてのモデルは同じ元データセットから作成されている必要があります。' },
  duplicateTarget: { en: 'The target variable "{target}" is chosen twice; choose one model per target.', ja: '目的変数「{target}」が重複しています。目的変数ごとにモデルを1つ選択してください。' },
  targetGoal: { en: 'Set the goal of the target "{target}".', ja: '目的変数「{target}」の目標を設定してください。' },
  targetUnknown: { en: 'No chosen model predicts "{target}".', ja: '選択したモデルには「{target}」を予測するものがありません。' },
  targetInFeatures: { en: 'The target "{target}" must not be among the features.', ja: '目的変数「{target}」を説明変数に含めることはできません。' },
  decimals: { en: 'At most 7 digits after the decimal point ({field}).', ja: '小数点以下は7桁までです（{field}）。' },
  engineBusy: { en: 'The settings could not be checked because the engine is busy. Please try again in a moment.', ja: 'エンジンが混み合っているため設定を確認できませんでした。しばらくしてからもう一度お試しください。' },
  running: { en: 'The optimization is already running.', ja: '最適化はすでに実行中です。' },
  conditionEmpty: { en: 'Enter at least one condition to predict.', ja: '予測する条件を1つ以上入力してください。' },
  taskNotFound: { en: 'The prediction does not exist.', ja: '予測が存在しません。' },
  csvColumns: { en: 'The CSV needs the columns name, kind, lower, upper (values, unit optional).', ja: 'CSVには name, kind, lower, upper の列が必要です（values, unit は任意）。' },
  // why a row of a feature-settings CSV is refused (row 1 is the first row under the header)
  csvRowName: { en: 'Row {row} of the CSV has no feature name.', ja: 'CSVの{row}行目に特徴量の名前がありません。' },
  csvRowNumber: { en: 'Row {row} of the CSV: "{column}" must be a number ("{value}").', ja: 'CSVの{row}行目: 「{column}」には数値を入力してください（「{value}」）。' },
  csvRowValue: { en: 'Row {row} of the CSV: the value of "{column}" cannot be used.', ja: 'CSVの{row}行目: 「{column}」の値は使えません。' },
} satisfies Record<string, LocalText>;

/** The engine's input errors (engine/mitate_engine/optimization), by code: their words are in the engine catalogue. */
export const engineErrors: Record<string, LocalText> = engineTexts(engineCodes('optimization.'));
