import type { Lang, LocalText } from '../../i18n/messages.js';

/** Input errors by the stable codes the engine also uses ({code, params, message}); said in the reader's language. */
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
  // engine codes
  no_variables: { en: 'Please add at least one variable.', ja: '変数を少なくとも1つ追加してください。' },
  variable_name_required: { en: 'Every variable needs a name.', ja: 'すべての変数に名前が必要です。' },
  variable_duplicate: { en: 'The variable "{variable}" appears twice.', ja: '変数「{variable}」が重複しています。' },
  variable_type: { en: 'The variable "{variable}" has an unknown type "{type}".', ja: '変数「{variable}」の種類「{type}」は不明です。' },
  levels_required: { en: 'The variable "{variable}" needs at least two distinct levels.', ja: '変数「{variable}」には異なる水準が少なくとも2つ必要です。' },
  bounds_order: { en: 'The lower bound of "{variable}" must be less than its upper bound.', ja: '「{variable}」の下限は上限より小さくしてください。' },
  mixture_negative: { en: 'The mixture component "{variable}" cannot have a negative lower bound.', ja: '混合成分「{variable}」の下限を負にはできません。' },
  total_positive: { en: 'The mixture total must be positive.', ja: '混合の合計は正の値にしてください。' },
  mixture_too_few: { en: 'A mixture needs at least two components.', ja: '混合には少なくとも2つの成分が必要です。' },
  mixture_unreachable: {
    en: 'The mixture bounds cannot reach the total {total}: the lower bounds add up to {low_sum} and the upper bounds to {high_sum}.',
    ja: '混合成分の上下限では合計{total}に到達できません（下限の合計は{low_sum}、上限の合計は{high_sum}）。',
  },
  constraint_empty: { en: 'A constraint has no variables.', ja: '変数のない制約があります。' },
  constraint_unknown: { en: 'A constraint uses "{variable}", which is not a variable.', ja: '制約で使われている「{variable}」は変数ではありません。' },
  constraint_categorical: { en: 'The categorical variable "{variable}" cannot be in a linear constraint.', ja: 'カテゴリ変数「{variable}」は線形制約に使えません。' },
  constraint_op: { en: 'Unknown constraint operator "{op}".', ja: '制約の演算子「{op}」は不明です。' },
  infeasible: { en: 'The constraints cannot all hold together with the variable bounds: {constraints}.', ja: '次の制約は変数の範囲と同時に満たせません: {constraints}。' },
  not_a_number: { en: '{what} must be a number.', ja: '{what}には数値を入力してください。' },
  model_kind: { en: 'Unknown model "{model}".', ja: 'モデル「{model}」は不明です。' },
  model_empty: { en: 'The model has no terms.', ja: 'モデルに項がありません。' },
  scheffe_needs_mixture: { en: 'Scheffé models need mixture components.', ja: 'Schefféモデルには混合成分が必要です。' },
  term_unknown: { en: 'The model term "{term}" uses "{variable}", which is not a variable.', ja: 'モデル項「{term}」の「{variable}」は変数ではありません。' },
  term_power_categorical: { en: 'The term "{term}" raises a categorical variable to a power.', ja: '項「{term}」はカテゴリ変数をべき乗しています。' },
  file_missing_value: { en: '{file}: row {row} has no value for "{variable}".', ja: '{file}: {row}行目に「{variable}」の値がありません。' },
  file_unknown_level: { en: '{file}: row {row} has "{value}" for "{variable}", which is not one of its levels.', ja: '{file}: {row}行目の「{variable}」の値「{value}」は水準にありません。' },
  file_not_a_number: { en: '{file}: row {row} has "{value}" for "{variable}", which is not a number.', ja: '{file}: {row}行目の「{variable}」の値「{value}」は数値ではありません。' },
  run_outside: { en: 'Runs file: row {row} cannot be used ({constraints}).', ja: '実験ファイルの{row}行目は使えません（{constraints}）。' },
  exclude_outside: { en: 'Exclude file: row {row} lies outside the variable ranges ({constraints}).', ja: '除外ファイルの{row}行目が変数の範囲外です（{constraints}）。' },
  tolerance_range: { en: "The exclusion tolerance must be between 0 and 1 (a fraction of each variable's range).", ja: '除外の許容差は0以上1未満（各変数の範囲に対する割合）にしてください。' },
  response_not_number: { en: 'The result "{response}" must be a number ("{value}").', ja: '結果「{response}」には数値が必要です（「{value}」）。' },
  too_few_runs: {
    en: 'The model has {terms} terms, so the design needs at least {terms} runs; {runs} were asked for. Ask for at least {needed} new runs or choose a smaller model.',
    ja: 'モデルの項が{terms}個あるため、計画には少なくとも{terms}回の実験が必要です（指定は{runs}回）。新しい実験を{needed}回以上にするか、小さいモデルを選んでください。',
  },
  runs_range: { en: 'The number of output conditions must be between 1 and {max}.', ja: '出力条件数は1以上{max}以下にしてください。' },
  algorithm_unknown: { en: 'Unknown design "{algorithm}".', ja: '計画「{algorithm}」は不明です。' },
  no_candidates: { en: 'Every candidate point is excluded; loosen the exclusions or the constraints.', ja: 'すべての候補点が除外されています。除外や制約を緩めてください。' },
  classical_infeasible: {
    en: '{count} of {total} points of this design break the constraints ({constraints}); choose an optimal or space-filling design.',
    ja: 'この計画の{total}点のうち{count}点が制約（{constraints}）を満たしません。最適計画か空間充填計画を選んでください。',
  },
  classical_excluded: { en: '{count} points of this design are in the exclude file; choose an optimal or space-filling design.', ja: 'この計画の{count}点が除外ファイルに含まれています。最適計画か空間充填計画を選んでください。' },
  classical_continuous_only: { en: '{design} designs need continuous variables; "{variable}" is not.', ja: '{design}計画には連続変数が必要です。「{variable}」は連続変数ではありません。' },
  classical_mixture: { en: 'Factorial, central composite and Box–Behnken designs do not apply to mixture components; choose a simplex design.', ja: '要因計画・中心複合計画・Box–Behnken計画は混合成分には使えません。シンプレックス計画を選んでください。' },
  simplex_needs_mixture: { en: 'Simplex designs need mixture components.', ja: 'シンプレックス計画には混合成分が必要です。' },
  lattice_degree: { en: 'The lattice degree must be at least 1.', ja: '格子の次数は1以上にしてください。' },
  fraction_too_small: { en: 'A fractional factorial needs at least 3 variables.', ja: '一部実施要因計画には少なくとも3つの変数が必要です。' },
  fraction_resolution: { en: 'No fractional factorial of resolution {resolution} exists for {count} variables.', ja: '{count}変数で分解能{resolution}の一部実施要因計画はありません。' },
  ccd_too_small: { en: 'A central composite design needs at least 2 variables.', ja: '中心複合計画には少なくとも2つの変数が必要です。' },
  bb_too_small: { en: 'A Box–Behnken design needs at least 3 variables.', ja: 'Box–Behnken計画には少なくとも3つの変数が必要です。' },
  bo_too_few_runs: { en: 'Bayesian optimisation needs at least {min} runs with measured results; {count} have one.', ja: 'ベイズ最適化には結果のある実験が少なくとも{min}件必要です（現在{count}件）。' },
  bo_constant: { en: 'All measured results are equal; Bayesian optimisation needs results that differ.', ja: '測定結果がすべて同じです。ベイズ最適化には異なる結果が必要です。' },
  bo_response: { en: 'Choose the measured result to optimise (a column of the runs).', ja: '最適化する測定結果（実験データの列）を選択してください。' },
  bo_model_features: { en: 'The trained model needs "{variable}", which is not a design variable.', ja: '学習済みモデルには設計変数にない「{variable}」が必要です。' },
  model_not_estimable: {
    en: 'The model cannot be estimated in this region: {terms} cannot be told apart from the other terms, because every run must satisfy {equalities}. Remove these terms (a custom model) or change the constraints.',
    ja: 'この領域ではモデルを推定できません。すべての実験が {equalities} を満たすため、{terms} を他の項と区別できません。これらの項を除く（カスタムモデル）か、制約を変更してください。',
  },
  model_not_estimable_levels: {
    en: 'The model cannot be estimated in this region: {terms} cannot be told apart from the other terms, because the variables take too few distinct values (a square needs three). Remove these terms or give the variables more levels.',
    ja: 'この領域ではモデルを推定できません。変数の取りうる値の種類が少なすぎる（2乗項には3水準が必要）ため、{terms} を他の項と区別できません。これらの項を除くか、水準を増やしてください。',
  },
  evaluate_empty: { en: 'The design file has no runs.', ja: '計画ファイルに実験がありません。' },
} satisfies Record<string, LocalText>;
export type ErrorCode = keyof typeof errors;

/** The uploaded files a row comes from, by the code in an error's {file} (engine doe/space.py FILE_NAMES, readRows). */
export const fileNames = {
  runs: { en: 'Runs file', ja: '実験ファイル' },
  exclude: { en: 'Exclude file', ja: '除外ファイル' },
  results: { en: 'Results file', ja: '結果ファイル' },
  design: { en: 'Design file', ja: '計画ファイル' },
  ours: { en: 'Our design', ja: 'こちらの計画' },
} satisfies Record<string, LocalText>;
export type FileCode = keyof typeof fileNames;

/** Why a row of an uploaded file is refused: the engine's `reasons` ({code, ...}, doe/space.py Space.reasons), one message each. */
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

/** The engine's coded error in the reader's language (or its English text when the code is not known). */
export function engineErrorText(error: string | null, lang: Lang): string | null {
  if (!error) return null;
  try {
    const e = JSON.parse(error) as { code?: string; params?: Record<string, unknown>; message?: string };
    const known = e.code ? (errors as Record<string, LocalText>)[e.code] : undefined;
    if (known) return fill(known[lang], localParams(e.params ?? {}, lang));
    return e.message ?? error;
  } catch {
    return error;
  }
}

/** True when a failed job's error is the user's input (a coded engine error), not a fault. */
export function isInputError(error: string | null): boolean {
  if (!error) return false;
  try {
    return typeof (JSON.parse(error) as { code?: unknown }).code === 'string';
  } catch {
    return false;
  }
}
