import { decodeEngineError, engineErrorText as sayEngineError, engineTexts, type Wording } from '../../i18n/engine-errors.js';
import type { Lang, LocalText } from '../../i18n/messages.js';

/** The design engine's input errors (engine/mitate_engine/optimal_design): their words are in the engine catalogue. */
const ENGINE_CODES = [
  'no_variables', 'variable_name_required', 'variable_duplicate', 'variable_type', 'levels_required', 'bounds_order', 'mixture_negative',
  'total_positive', 'mixture_too_few', 'mixture_unreachable', 'constraint_empty', 'constraint_unknown', 'constraint_categorical', 'constraint_op',
  'infeasible', 'not_a_number', 'model_kind', 'model_empty', 'scheffe_needs_mixture', 'term_unknown', 'term_power_categorical', 'file_missing_value',
  'file_unknown_level', 'file_not_a_number', 'run_outside', 'exclude_outside', 'tolerance_range', 'response_not_number', 'too_few_runs',
  'runs_range', 'algorithm_unknown', 'no_candidates', 'classical_infeasible', 'classical_excluded', 'classical_continuous_only', 'classical_mixture',
  'simplex_needs_mixture', 'lattice_degree', 'fraction_too_small', 'fraction_resolution', 'ccd_too_small', 'bb_too_small', 'bo_too_few_runs',
  'bo_constant', 'bo_response', 'bo_model_features', 'model_not_estimable', 'model_not_estimable_levels', 'evaluate_empty',
] as const;

/** Input errors by stable code, the server's own and the engine's ({code, params, message}); said in the reader's language. */
export const errors = {
  project_not_found: { en: 'The optimal design project does not exist.', ja: '最適計画プロジェクトが存在しません。' },
  round_not_found: { en: 'This round of the project does not exist.', ja: 'このプロジェクトのラウンドは存在しません。' },
  name_required: { en: 'Please enter a project name.', ja: 'プロジェクト名を入力してください。' },
  settings_invalid: { en: 'The design settings could not be read: they are not valid JSON.', ja: '計画の設定を読み取れませんでした（JSONの形式が正しくありません）。' },
  file_unknown_column: { en: '{file}: the column "{column}" is not a variable or a result of this project.', ja: '{file}: 列「{column}」はこのプロジェクトの変数でも結果でもありません。' },
  file_empty: { en: '{file} has no rows.', ja: '{file}に行がありません。' },
  file_not_csv: { en: 'Please choose a CSV file.', ja: 'CSVファイルを選択してください。' },
  project_running: { en: 'The design is still being computed; wait until it finishes.', ja: '計画を計算中です。終わるまでお待ちください。' },
  no_result: { en: 'The design has no result yet.', ja: '計画の結果はまだありません。' },
  no_evaluation: { en: 'No design has been evaluated for this project yet.', ja: 'このプロジェクトではまだ計画を評価していません。' },
  results_missing_response: { en: 'The results file has no column for the result "{response}".', ja: '結果ファイルに結果「{response}」の列がありません。' },
  existing_project_variables: { en: 'The project "{project}" has no variable "{variable}", so its runs cannot be reused here.', ja: 'プロジェクト「{project}」には変数「{variable}」がないため、その実験をここで使えません。' },
  model_not_ready: { en: 'The chosen trained model is not finished; choose a trained model.', ja: '選択した学習済みモデルは完成していません。学習済みのモデルを選択してください。' },
  model_not_regression: { en: 'Only a trained regression model can predict the result to optimise.', ja: '最適化する結果を予測できるのは学習済みの回帰モデルだけです。' },
  ...engineTexts(ENGINE_CODES),
} satisfies Record<string, LocalText>;
export type ErrorCode = keyof typeof errors;

/** The uploaded files a row comes from, by the code in an error's {file} (engine optimal_design/space.py FILE_NAMES, readRows). */
export const fileNames = {
  runs: { en: 'Runs file', ja: '実験ファイル' },
  exclude: { en: 'Exclude file', ja: '除外ファイル' },
  results: { en: 'Results file', ja: '結果ファイル' },
  design: { en: 'Design file', ja: '計画ファイル' },
  ours: { en: 'Our design', ja: 'こちらの計画' },
} satisfies Record<string, LocalText>;
export type FileCode = keyof typeof fileNames;

/** Why a row of an uploaded file is refused: the engine's `reasons` ({code, ...}, optimal_design/space.py Space.reasons), one message each. */
export const rowReasons = {
  missing: { en: '"{variable}" has no value', ja: '「{variable}」の値がありません' },
  level: { en: '"{variable}" is not one of its levels', ja: '「{variable}」の値が水準にありません' },
  range: { en: '"{variable}" is outside {low} to {high}', ja: '「{variable}」が{low}〜{high}の範囲外です' },
  levels: { en: '"{variable}" is not one of {levels}', ja: '「{variable}」が{levels}のいずれでもありません' },
  constraint: { en: 'breaks {label}', ja: '制約 {label} を満たしていません' },
} satisfies Record<string, LocalText>;

/** An error's parameters in the reader's language: the file by its name, the row's reasons (when given) as {constraints}. */
export function localParams(params: Record<string, unknown>, lang: Lang): Record<string, unknown> {
  const out = { ...params };
  if (typeof params.file === 'string' && Object.hasOwn(fileNames, params.file)) out.file = fileNames[params.file as FileCode][lang];
  // lists (model terms, the region's equalities) joined the way each language lists
  if (Array.isArray(params.terms)) out.terms = params.terms.join(lang === 'ja' ? '、' : ', ');
  if (Array.isArray(params.equalities)) out.equalities = params.equalities.join(lang === 'ja' ? '、' : '; ');
  if (Array.isArray(params.reasons)) {
    out.constraints = (params.reasons as Record<string, unknown>[])
      .map((r) => {
        const text = typeof r.code === 'string' && Object.hasOwn(rowReasons, r.code) ? rowReasons[r.code as keyof typeof rowReasons][lang] : '{label}';
        return fill(text, { ...r, levels: Array.isArray(r.levels) ? r.levels.join(', ') : r.levels });
      })
      .join(lang === 'ja' ? '、' : '; ');
  }
  return out;
}

/** A coded error as text in both languages (for an AppError raised before the caller's language is known). */
export function localText(code: ErrorCode, params: Record<string, unknown> = {}): LocalText {
  return { en: fill(errors[code].en, localParams(params, 'en')), ja: fill(errors[code].ja, localParams(params, 'ja')) };
}

export function fill(text: string, params: Record<string, unknown>): string {
  return text.replace(/\{(\w+)\}/g, (m, k: string) => (params[k] === undefined ? m : String(params[k])));
}

/** How the design area words the engine's errors (its own catalogue, errors, first): parameters by localParams, each
 * value as it is (a missing one left as "{name}"). */
export const designWording: Wording = {
  params: localParams,
  param: (v) => (v === undefined ? undefined : String(v)),
};

/** The engine's coded error in the reader's language (or its English text when the code is not known). */
export const engineErrorText = (error: string | null, lang: Lang): string | null => (error ? sayEngineError(error, lang, errors, designWording) : null);

/** True when a failed job's error is the user's input (a coded engine error), not a fault. */
export const isInputError = (error: string | null): boolean => decodeEngineError(error) !== null;
