import { engineTexts } from '../../i18n/engine-errors.js';
import type { Lang, LocalText } from '../../i18n/messages.js';

/** The statistics engine's input errors (engine/mitate_engine/statistical_analysis), which the server's own checks raise too: their
 * words are in the engine catalogue. */
const ENGINE_CODES = [
  'alpha_range', 'category_required', 'column_missing', 'group_missing', 'groups_required', 'groups_same', 'not_numeric', 'one_level',
  'pair_count_mismatch', 'pair_key_duplicate', 'same_variable', 'too_few_groups', 'too_few_values', 'too_many_groups', 'variable2_required',
  'variable_required', 'zero_variance',
] as const;

/** Input errors, by the stable codes the engine also uses (its errors carry {code, params, message}). */
export const errors = {
  project_not_found: { en: 'The statistical project does not exist.', ja: '統計プロジェクトが存在しません。' },
  name_required: { en: 'Please enter a project name.', ja: 'プロジェクト名を入力してください。' },
  mean_not_finite: { en: 'The hypothetical mean must be a number.', ja: '仮説平均には数値を入力してください。' },
  variable2_needed: { en: 'Please choose variable 2.', ja: '変数2を選択してください。' },
  category_type: { en: 'The column "{column}" cannot serve as a category (use text, integer or yes/no values).', ja: '列「{column}」はカテゴリとして使えません（文字列・整数・真偽値の列を選んでください）。' },
  project_running: { en: 'The test is already running.', ja: '検定はすでに実行中です。' },
  no_result: { en: 'The test has no result yet.', ja: '検定の結果はまだありません。' },
  data_unreadable: { en: 'The data of the dataset could not be read: {reason}', ja: 'データセットのデータを読み込めませんでした: {reason}' },
  ...engineTexts(ENGINE_CODES),
  ids_required: { en: 'Please choose at least one project.', ja: '少なくとも1つのプロジェクトを選択してください。' },
} satisfies Record<string, LocalText>;
export type ErrorCode = keyof typeof errors;

export const testNames: Record<string, LocalText> = {
  one_sample_t: { en: 'One-sample t-test', ja: '1標本t検定' },
  two_sample_t: { en: 'Two-sample t-test', ja: '2標本t検定' },
  student: { en: "Student's two-sample t-test (equal variances)", ja: 'スチューデントの2標本t検定（等分散）' },
  welch: { en: "Welch's two-sample t-test", ja: 'ウェルチの2標本t検定' },
  paired_t: { en: 'Paired t-test', ja: '対応のあるt検定' },
  mann_whitney: { en: 'Mann–Whitney U test', ja: 'マン・ホイットニーのU検定' },
  wilcoxon: { en: 'Wilcoxon signed-rank test', ja: 'ウィルコクソンの符号付き順位検定' },
  wilcoxon_paired: { en: 'Wilcoxon signed-rank test (paired)', ja: 'ウィルコクソンの符号付き順位検定（対応あり）' },
  wilcoxon_one_sample: { en: 'Wilcoxon signed-rank test (one sample)', ja: 'ウィルコクソンの符号付き順位検定（1標本）' },
  anova: { en: 'One-way ANOVA with Tukey HSD', ja: '一元配置分散分析とTukey HSD' },
  one_way_anova: { en: 'One-way ANOVA with Tukey HSD', ja: '一元配置分散分析とTukey HSD' },
  chi_square: { en: 'Chi-square test of independence', ja: 'カイ二乗独立性検定' },
  chi_square_yates: { en: "Chi-square test of independence (Yates' correction)", ja: 'カイ二乗独立性検定（イェーツの補正）' },
  pearson: { en: 'Pearson correlation test', ja: 'ピアソンの相関検定' },
  spearman: { en: 'Spearman rank correlation test', ja: 'スピアマンの順位相関検定' },
  shapiro: { en: 'Shapiro–Wilk normality test', ja: 'シャピロ・ウィルク正規性検定' },
  shapiro_wilk: { en: 'Shapiro–Wilk normality test', ja: 'シャピロ・ウィルク正規性検定' },
  f_test: { en: 'F-test of equal variances', ja: '等分散のF検定' },
};

/** The rank test that answers the same question without assuming normality, by the test's type (a key of
 * testNames): paired data and one sample have the signed-rank test, two independent samples Mann–Whitney U. */
export const rankAlternatives: Record<string, string> = {
  one_sample_t: 'wilcoxon_one_sample',
  paired_t: 'wilcoxon_paired',
  two_sample_t: 'mann_whitney',
  pearson: 'spearman',
};
export const anyRankTest: LocalText = { en: 'a rank test', ja: '順位に基づく検定' };

export const warningTexts: Record<string, LocalText> = {
  missing_dropped: { en: '{count} row(s) with missing values were dropped.', ja: '欠損値を含む{count}行を除外しました。' },
  normality_failed: {
    en: 'The data of {target} do not look normally distributed (Shapiro–Wilk p {p}). With small samples, consider {rank}.',
    ja: '{target}のデータは正規分布に従っていない可能性があります（シャピロ・ウィルク p {p}）。標本が小さい場合は{rank}も検討してください。',
  },
  equal_variance_failed: {
    en: "The variances differ (Levene p {p}); Welch's t-test, which does not assume equal variances, is more appropriate.",
    ja: '分散が等しくない可能性があります（ルビーン検定 p {p}）。等分散を仮定しないウェルチのt検定の方が適切です。',
  },
  equal_variance_failed_groups: {
    en: 'The variances differ between the groups (Levene p {p}); read the ANOVA with care, especially when the group sizes differ.',
    ja: 'グループ間で分散が異なる可能性があります（ルビーン検定 p {p}）。特にグループの大きさが異なる場合は、分散分析の結果を慎重に解釈してください。',
  },
  expected_counts_failed: {
    en: 'More than 20% of the cells have an expected count below 5 (or one below 1); the chi-square approximation may be poor.',
    ja: '期待度数が5未満のセルが20%を超えています（または1未満のセルがあります）。カイ二乗近似の精度が低い可能性があります。',
  },
  normality_subsampled: { en: 'The normality check of {target} used a random sample of {n} values.', ja: '{target}の正規性の確認には無作為に抽出した{n}件を使いました。' },
  zeros_dropped: { en: '{count} zero difference(s) were left out, as the Wilcoxon test does.', ja: 'ウィルコクソン検定の規定どおり、差がゼロの{count}件を除外しました。' },
};

export const magnitudes: Record<string, LocalText> = {
  negligible: { en: 'negligible', ja: 'ごく小さい' },
  small: { en: 'small', ja: '小' },
  medium: { en: 'medium', ja: '中' },
  large: { en: 'large', ja: '大' },
};

export const labels = {
  test: { en: 'Test', ja: '検定' },
  project: { en: 'Project', ja: 'プロジェクト' },
  dataset: { en: 'Dataset', ja: 'データセット' },
  statistic: { en: 'Statistic', ja: '検定統計量' },
  df: { en: 'Degrees of freedom', ja: '自由度' },
  p_value: { en: 'p-value', ja: 'p値' },
  alpha: { en: 'Significance level', ja: '有意水準' },
  decision: { en: 'Decision', ja: '判定' },
  reject: { en: 'Null hypothesis rejected', ja: '帰無仮説を棄却' },
  keep: { en: 'Null hypothesis not rejected', ja: '帰無仮説を棄却しない' },
  estimate: { en: 'Estimate', ja: '推定値' },
  ci: { en: 'Confidence interval', ja: '信頼区間' },
  effect: { en: 'Effect size', ja: '効果量' },
  alternative: { en: 'Alternative hypothesis', ja: '対立仮説' },
  group: { en: 'Group', ja: 'グループ' },
  assumptions: { en: 'Assumption checks', ja: '前提条件の確認' },
  warnings: { en: 'Warnings', ja: '注意' },
  descriptives: { en: 'Descriptive statistics', ja: '記述統計' },
  post_hoc: { en: 'Tukey HSD (pairwise comparisons)', ja: 'Tukey HSD（多重比較）' },
  table: { en: 'Contingency table (observed / expected)', ja: '分割表（観測度数 / 期待度数）' },
  passed: { en: 'passed', ja: '問題なし' },
  failed: { en: 'failed', ja: '要注意' },
  generated: { en: 'Generated', ja: '作成日時' },
  variables: { en: 'Variables', ja: '変数' },
  state: { en: 'State', ja: '状態' },
} satisfies Record<string, LocalText>;

export const effectNames: Record<string, LocalText> = {
  cohens_d: { en: "Cohen's d", ja: 'コーエンのd' },
  r: { en: 'r', ja: 'r' },
  eta_squared: { en: 'η² (eta squared)', ja: 'η²（イータ二乗）' },
  cramers_v: { en: "Cramér's V", ja: 'クラメールのV' },
};

export const estimateNames: Record<string, LocalText> = {
  mean: { en: 'Mean', ja: '平均' },
  mean_difference: { en: 'Mean difference', ja: '平均の差' },
  median_difference: { en: 'Difference of medians', ja: '中央値の差' },
  median: { en: 'Median', ja: '中央値' },
  correlation: { en: 'Correlation coefficient', ja: '相関係数' },
  variance_ratio: { en: 'Variance ratio', ja: '分散比' },
};

export const alternativeNames: Record<string, LocalText> = {
  'two-sided': { en: 'two-sided (≠)', ja: '両側（≠）' },
  less: { en: 'less (<)', ja: '片側（<）' },
  greater: { en: 'greater (>)', ja: '片側（>）' },
};

export function fill(text: string, params: Record<string, unknown> = {}): string {
  return text.replace(/\{(\w+)\}/g, (_, k: string) => (k in params && params[k] !== null && params[k] !== undefined ? String(params[k]) : `{${k}}`));
}

export const say = (t: LocalText, lang: Lang, params?: Record<string, unknown>) => fill(t[lang], params);
