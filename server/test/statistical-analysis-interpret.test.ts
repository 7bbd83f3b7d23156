import { describe, expect, it } from 'vitest';
import type { AppError } from '../src/http/errors.js';
import { localize } from '../src/i18n/messages.js';
import { decisionSentence, pText, type ReferenceCurve, resultCsv, type TestResult, warningText } from '../src/features/statistical-analysis/interpret.js';
import { normalizeSettings } from '../src/features/statistical-analysis/rules.js';

type Of<T extends TestResult['test_type']> = Extract<TestResult, { test_type: T }>;
const vars = (variable1: string, variable2: string | null = null, category: string | null = null) => ({ variable1, variable2, category, group1: null, group2: null });
const common: Omit<Of<'f_test'>, 'test_type' | 'method' | 'statistic' | 'df' | 'charts' | 'variables'> = {
  alternative: 'two-sided', alpha: 0.05, confidence_level: 0.95, df2: null, p_value: 0.3, reject: false, estimate: null, ci: null, effect_size: null,
  groups: [], n_missing: 0, assumptions: [], warnings: [], seconds: 0.01,
};
const reference: ReferenceCurve = { dist: 't', params: { df: 19 }, x: [], y: [], observed: null, observed_off_chart: false, critical_low: null, critical_high: null, alternative: 'two-sided' };
const anova = (over: Partial<Of<'anova'>>): Of<'anova'> => ({
  ...common, test_type: 'anova', method: 'one_way_anova', statistic: { symbol: 'F', value: 21.8 }, df: 6, df2: 1934, p_value: 1e-20, reject: true,
  anova_table: { ss_between: 1, ss_within: 2, ms_between: 1, ms_within: 1 }, post_hoc: { method: 'tukey_hsd', pairs: [] }, charts: { box: [], reference },
  variables: vars('Luminosity_Index', null, 'Fault'), ...over,
});
const pearson = (over: Partial<Of<'pearson'>>): Of<'pearson'> => ({
  ...common, test_type: 'pearson', method: 'pearson', statistic: { symbol: 'r', value: 0.12 }, df: 28, t: 0.6, pairs: 30,
  charts: { scatter: { x: [], y: [], slope: null, intercept: null, shown: 0, n: 30 }, reference }, variables: vars('x', 'y'), ...over,
});
const oneSample = (over: Partial<Of<'one_sample_t'>>): Of<'one_sample_t'> => ({
  ...common, test_type: 'one_sample_t', method: 'one_sample_t', statistic: { symbol: 't', value: -3.2 }, df: 19, hypothetical_mean: 0,
  charts: { box: [], reference, reference_line: 0 }, variables: vars('extra'), ...over,
});
const shapiroOf = (over: Partial<Of<'shapiro'>>): Of<'shapiro'> => ({
  ...common, test_type: 'shapiro', method: 'shapiro_wilk', statistic: { symbol: 'W', value: 0.97 }, df: null, n_tested: 20,
  charts: { box: [], qq: { theoretical: [], sample: [], slope: 1, intercept: 0 } }, variables: vars('v'), ...over,
});
const g = (label: string, mean: number) => ({ label, n: 5, missing: 0, mean, sd: 1, se: 0.4, median: mean, q1: 0, q3: 1, min: 0, max: 2, ci_low: 0, ci_high: 1 });

describe('decision sentences and warnings', () => {
  it('says each kind of test in plain English and Japanese', () => {
    const anovaResult = anova({ groups: [g('a', 1), g('b', 2), g('c', 3)] });
    expect(decisionSentence(anovaResult, 'en')).toBe('At the 5% significance level, the means of "Luminosity_Index" differ significantly among the 3 groups of "Fault" (F(6, 1934) = 21.8, p < 0.0001). The null hypothesis is rejected.');
    expect(decisionSentence(anovaResult, 'ja')).toBe('有意水準5%で、「Fault」の3グループの間で「Luminosity_Index」の平均に有意な差があります（F(6, 1934) = 21.8、p < 0.0001）。帰無仮説を棄却します。');
    const corr = pearson({ alternative: 'greater', p_value: 0.26 });
    expect(decisionSentence(corr, 'en')).toBe('At the 5% significance level, no significant positive correlation was found between "x" and "y" (r = 0.12, p = 0.26). The null hypothesis is not rejected.');
    expect(decisionSentence(corr, 'ja')).toBe('有意水準5%で、「x」と「y」の間に有意な正の相関は認められません（r = 0.12、p = 0.26）。帰無仮説は棄却されません。');
    const one = oneSample({ alternative: 'less', alpha: 0.01, p_value: 0.0024, reject: true, hypothetical_mean: 2, groups: [g('extra', 1.54)] });
    expect(decisionSentence(one, 'en')).toBe('At the 1% significance level, the mean of "extra" (1.54) is significantly less than 2 (t(19) = -3.2, p = 0.0024). The null hypothesis is rejected.');
    const shapiro = shapiroOf({});
    expect(decisionSentence(shapiro, 'ja')).toBe('有意水準5%で、「v」の値に正規分布からの有意なずれは認められません（W = 0.97、p = 0.3）。帰無仮説は棄却されません。');
  });

  it('writes p-values as R prints them and joins failing groups into one warning', () => {
    expect(pText(0.002832890197)).toBe('= 0.002833');
    expect(pText(5e-7)).toBe('< 0.0001');
    const w = { code: 'normality_failed', params: { targets: ['A', 'B', 'C'], p: 0.0123 } };
    expect(warningText(w, 'en')).toMatch(/^The data of "A", "B" and "C" do not look normally distributed \(Shapiro–Wilk p ≤ 0\.0123\)/);
    expect(warningText(w, 'ja')).toMatch(/^「A」「B」「C」のデータは正規分布に従っていない可能性があります（シャピロ・ウィルク p ≤ 0\.0123）/);
    expect(warningText({ code: 'equal_variance_failed', params: { target: '', p: 3e-9 } }, 'en')).toContain('(Levene p < 0.0001)');
    // The rank test suggested asks the same question: paired data have the signed-rank test, never Mann–Whitney U.
    const diff = { code: 'normality_failed', params: { target: 'extra', p: 0.01 } };
    expect(warningText(diff, 'en', 'paired_t')).toMatch(/consider the Wilcoxon signed-rank test \(paired\)\.$/);
    expect(warningText(diff, 'ja', 'paired_t')).toMatch(/標本が小さい場合はウィルコクソンの符号付き順位検定（対応あり）も検討してください。$/);
    expect(warningText(diff, 'en', 'paired_t')).not.toContain('Mann');
    expect(warningText(diff, 'en', 'one_sample_t')).toContain('the Wilcoxon signed-rank test (one sample)');
    expect(warningText(diff, 'en', 'two_sample_t')).toContain('consider the Mann–Whitney U test.');
    expect(warningText(diff, 'ja', 'two_sample_t')).toContain('マン・ホイットニーのU検定も検討してください');
    expect(warningText(diff, 'en', 'anova')).toContain('consider a rank test.');
    expect(warningText({ code: 'missing_dropped', params: { count: 4 } }, 'ja')).toBe('欠損値を含む4行を除外しました。');
  });

  it('quotes CSV cells and starts with a BOM for spreadsheet programs', () => {
    const csv = resultCsv({ name: 'a, "b"', dataset_name: 'd', test_type: 'anova', finished_at: null }, anova({ groups: [g('x,y', 1)] }), 'en');
    expect(csv.startsWith('\ufeffitem,value\r\n')).toBe(true);
    expect(csv).toContain('Project,"a, ""b"""');
    expect(csv).toContain('"x,y",5,0,1,');
  });
});

describe('settings rules per test type', () => {
  const cols = [
    { name: 'v', type: 'float' as const },
    { name: 'w', type: 'integer' as const },
    { name: 'c', type: 'string' as const },
    { name: 't', type: 'datetime' as const },
  ];
  const s = (over: Record<string, unknown>) => ({
    test_type: 'two_sample_t', variable1: 'v', variable2: null, category: null, group1: null, group2: null, groups: [],
    hypothetical_mean: 0, significance_level: 0.05, alternative: 'two-sided', equal_variance: 'auto', ...over,
  }) as Parameters<typeof normalizeSettings>[0];
  const code = (over: Record<string, unknown>) => {
    try {
      normalizeSettings(s(over), cols);
      return 'ok';
    } catch (e) {
      return `${(e as AppError).field}: ${localize('en', (e as AppError).key, (e as AppError).params)}`;
    }
  };

  it('drops what a test does not use and fixes options that do not apply', () => {
    expect(normalizeSettings(s({ test_type: 'one_sample_t', variable2: 'w', category: 'c', group1: 'a', alternative: 'less' }), cols)).toMatchObject({ variable2: null, category: null, group1: null, alternative: 'less' });
    expect(normalizeSettings(s({ test_type: 'anova', category: 'c', alternative: 'less', variable2: 'w' }), cols)).toMatchObject({ alternative: 'two-sided', variable2: null });
    expect(normalizeSettings(s({ test_type: 'chi_square', variable1: 'c', category: 'w' }), cols)).toMatchObject({ variable2: 'w', category: null });
    expect(normalizeSettings(s({ test_type: 'wilcoxon' }), cols)).toMatchObject({ variable2: null, category: null });
  });

  it('refuses what cannot work, on the field at fault', () => {
    expect(code({ significance_level: 1 })).toMatch(/^significance_level: The significance level/);
    expect(code({ category: 't', group1: 'a', group2: 'b' })).toMatch(/^category: The column "t" cannot serve as a category/);
    expect(code({ category: 'c', group1: 'a' })).toMatch(/^group2: Please choose groups 1 and 2/);
    expect(code({ variable2: 'v' })).toMatch(/^variable2: Choose two different variables/);
    expect(code({ test_type: 'pearson', variable2: 'c' })).toMatch(/^variable2: The column "c" is not numeric/);
    expect(code({ test_type: 'anova' })).toMatch(/^category: Please choose the category column/);
    expect(code({ test_type: 'paired_t' })).toMatch(/^variable2: Please choose variable 2/);
    expect(code({ test_type: 'paired_t', category: 'c', group1: 'a', group2: 'b', variable2: 'w' })).toBe('ok');
  });
});
