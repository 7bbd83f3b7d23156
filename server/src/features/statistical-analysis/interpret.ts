import type { z } from 'zod';
import type { Lang, LocalText } from '../../i18n/messages.js';
import type { BoxData as BoxDataSchema, ReferenceCurve as ReferenceCurveSchema, TestResult as TestResultSchema } from './responses.js';
import { alternativeNames, anyRankTest, effectNames, estimateNames, fill, labels, magnitudes, rankAlternatives, say, testNames, warningTexts } from './messages.js';
import { csvRow as sharedCsvRow } from '../../http/csv.js';

/** A stored engine result: its schema (responses.ts) is the one description, shared with the web app through OpenAPI. */
export type TestResult = z.infer<typeof TestResultSchema>;
export type BoxData = z.infer<typeof BoxDataSchema>;
export type ReferenceCurve = z.infer<typeof ReferenceCurveSchema>;

import { descriptiveRows } from '@mitate/rules';

export { boxesOf, descriptiveRows, referenceOf } from '@mitate/rules';

/** Numbers for sentences: 5 significant digits, exponent for the very small and very large. */
export function num(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '−∞';
  if (Number.isInteger(x) && Math.abs(x) < 1e12) return String(x);
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-4 || a >= 1e9)) return x.toExponential(3);
  if (a >= 1000) return String(Number(x.toFixed(2)));
  return String(Number(x.toPrecision(5)));
}

/** p-values as R prints them (4 significant digits), '< 0.0001' below that. */
export function pText(p: number | null | undefined): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return '—';
  if (p < 1e-4) return '< 0.0001';
  return `= ${String(Number(p.toPrecision(4)))}`;
}

export const percent = (alpha: number) => `${Number((alpha * 100).toPrecision(6))}%`;

export function statText(r: TestResult): string {
  if (!r.statistic) return '';
  const s = r.statistic.symbol;
  let df = '';
  if (r.df !== null && r.df !== undefined && ['t', 'F', 'χ²'].includes(s)) df = r.df2 !== null && r.df2 !== undefined ? `(${num(r.df)}, ${num(r.df2)})` : `(${num(r.df)})`;
  const z = r.test_type === 'mann_whitney' || r.test_type === 'wilcoxon' ? `, z = ${num(r.z)}` : '';
  return `${s}${df} = ${num(r.statistic.value)}${z}`;
}

const q = (lang: Lang, s: string) => (lang === 'ja' ? `「${s}」` : `"${s}"`);

/** How a group is named: a column, or a value column within a category's group. */
function groupName(r: TestResult, lang: Lang, index: 0 | 1): string {
  const v = r.variables;
  const g = r.groups[index]?.label ?? '';
  if (v.category && (index === 0 ? v.group1 : v.group2) !== null) {
    return lang === 'ja' ? `グループ${q(lang, g)}の${q(lang, v.variable1)}` : `${q(lang, v.variable1)} in group ${q(lang, g)}`;
  }
  return q(lang, g);
}

type Phrase = { x: string; y: string };

const compare: Record<'reject' | 'keep', Record<string, LocalText>> = {
  reject: {
    'two-sided': { en: '{x} differs significantly from {y}', ja: '{x}は{y}と有意に異なります' },
    less: { en: '{x} is significantly less than {y}', ja: '{x}は{y}より有意に小さいです' },
    greater: { en: '{x} is significantly greater than {y}', ja: '{x}は{y}より有意に大きいです' },
  },
  keep: {
    'two-sided': { en: '{x} does not differ significantly from {y}', ja: '{x}と{y}の間に有意な差は認められません' },
    less: { en: '{x} is not significantly less than {y}', ja: '{x}が{y}より小さいとはいえません' },
    greater: { en: '{x} is not significantly greater than {y}', ja: '{x}が{y}より大きいとはいえません' },
  },
};

function comparison(r: TestResult, lang: Lang): Phrase | null {
  const [a, b] = r.groups;
  const ja = lang === 'ja';
  const of = (what: LocalText, name: string, value: number | null | undefined) =>
    ja ? `${name}の${what.ja}（${num(value)}）` : `the ${what.en} of ${name} (${num(value)})`;
  const mean = { en: 'mean', ja: '平均' };
  const median = { en: 'median', ja: '中央値' };
  const variance = { en: 'variance', ja: '分散' };
  const split = !!(r.variables.category && r.variables.group1 !== null);
  const pairOf = (what: LocalText, value: number | null | undefined) => {
    const v = r.variables;
    if (ja) return split ? `グループ「${a.label}」とグループ「${b.label}」の「${v.variable1}」の差の${what.ja}（${num(value)}）` : `「${a.label}」と「${b.label}」の差の${what.ja}（${num(value)}）`;
    return split
      ? `the ${what.en} difference of "${v.variable1}" between group "${a.label}" and group "${b.label}" (${num(value)})`
      : `the ${what.en} difference between "${a.label}" and "${b.label}" (${num(value)})`;
  };
  switch (r.test_type) {
    case 'one_sample_t':
      return { x: of(mean, q(lang, a.label), a.mean), y: num(r.hypothetical_mean) };
    case 'two_sample_t':
      return { x: of(mean, groupName(r, lang, 0), a.mean), y: of(mean, groupName(r, lang, 1), b.mean) };
    case 'paired_t':
      return { x: pairOf(mean, r.estimate?.value), y: num(r.hypothetical_mean) };
    case 'mann_whitney':
      return {
        x: ja ? `${groupName(r, lang, 0)}の分布（中央値 ${num(a.median)}）` : `the distribution of ${groupName(r, lang, 0)} (median ${num(a.median)})`,
        y: ja ? `${groupName(r, lang, 1)}の分布（中央値 ${num(b.median)}）` : `that of ${groupName(r, lang, 1)} (median ${num(b.median)})`,
      };
    case 'wilcoxon':
      if (r.groups.length === 2) {
        return { x: pairOf(median, r.estimate?.value), y: num(r.hypothetical_mean) };
      }
      return { x: of(median, q(lang, a.label), a.median), y: num(r.hypothetical_mean) };
    case 'f_test':
      return { x: of(variance, groupName(r, lang, 0), a.sd !== null ? a.sd * a.sd : null), y: of(variance, groupName(r, lang, 1), b.sd !== null ? b.sd * b.sd : null) };
    default:
      return null;
  }
}

/** The finding in words, without the statistic. */
function finding(r: TestResult, lang: Lang): string {
  const key = r.reject ? 'reject' : 'keep';
  const alt = (['two-sided', 'less', 'greater'].includes(r.alternative) ? r.alternative : 'two-sided') as 'two-sided' | 'less' | 'greater';
  const c = comparison(r, lang);
  if (c) return fill(compare[key][alt][lang], c);
  const v = r.variables;
  switch (r.test_type) {
    case 'anova': {
      const p = { v: q(lang, v.variable1), cat: q(lang, v.category ?? ''), k: r.groups.length };
      return r.reject
        ? say({ en: 'the means of {v} differ significantly among the {k} groups of {cat}', ja: '{cat}の{k}グループの間で{v}の平均に有意な差があります' }, lang, p)
        : say({ en: 'no significant difference was found among the means of {v} in the {k} groups of {cat}', ja: '{cat}の{k}グループの間で{v}の平均に有意な差は認められません' }, lang, p);
    }
    case 'chi_square': {
      const p = { a: q(lang, r.table.row_variable), b: q(lang, r.table.column_variable) };
      return r.reject
        ? say({ en: '{a} and {b} are significantly associated (they are not independent)', ja: '{a}と{b}の間には有意な関連があります（独立ではありません）' }, lang, p)
        : say({ en: 'no significant association was found between {a} and {b}', ja: '{a}と{b}の間に有意な関連は認められません' }, lang, p);
    }
    case 'pearson':
    case 'spearman': {
      const sign = alt === 'less' ? { en: 'negative ', ja: '負の' } : alt === 'greater' ? { en: 'positive ', ja: '正の' } : { en: '', ja: '' };
      const p = { x: q(lang, v.variable1), y: q(lang, v.variable2 ?? ''), s: sign[lang] };
      return r.reject
        ? say({ en: 'there is a significant {s}correlation between {x} and {y}', ja: '{x}と{y}の間には有意な{s}相関があります' }, lang, p)
        : say({ en: 'no significant {s}correlation was found between {x} and {y}', ja: '{x}と{y}の間に有意な{s}相関は認められません' }, lang, p);
    }
    case 'shapiro': {
      const p = { v: q(lang, v.variable1) };
      return r.reject
        ? say({ en: 'the values of {v} do not follow a normal distribution', ja: '{v}の値は正規分布に従っていません' }, lang, p)
        : say({ en: 'no significant departure from a normal distribution was found for {v}', ja: '{v}の値に正規分布からの有意なずれは認められません' }, lang, p);
    }
    default:
      return '';
  }
}

/** The decision at the significance level as one plain sentence. */
export function decisionSentence(r: TestResult, lang: Lang): string {
  const body = finding(r, lang);
  const stat = statText(r);
  const p = `p ${pText(r.p_value)}`;
  const detail = stat ? `${stat}${lang === 'ja' ? '、' : ', '}${p}` : p;
  if (lang === 'ja') {
    return `有意水準${percent(r.alpha)}で、${body}（${detail}）。${r.reject ? '帰無仮説を棄却します。' : '帰無仮説は棄却されません。'}`;
  }
  return `At the ${percent(r.alpha)} significance level, ${body} (${detail}). The null hypothesis is ${r.reject ? 'rejected' : 'not rejected'}.`;
}

/** A warning in words; `testType` (the result's test_type) picks the rank test a normality warning suggests. */
export function warningText(w: { code: string; params: Record<string, unknown> }, lang: Lang, testType?: string): string {
  const t = warningTexts[w.code];
  if (!t) return w.code;
  const params: Record<string, unknown> = { ...w.params };
  const rank = testType ? testNames[rankAlternatives[testType] ?? ''] : undefined;
  params.rank = rank ? (lang === 'en' ? `the ${rank.en}` : rank.ja) : anyRankTest[lang];
  const quote = (s: unknown) => (lang === 'ja' ? `「${s}」` : `"${s}"`);
  const targets = Array.isArray(params.targets) ? params.targets : typeof params.target === 'string' && params.target !== '' ? [params.target] : [];
  if (typeof params.p === 'number') {
    const p = pText(params.p);
    params.p = targets.length > 1 && !p.startsWith('<') ? `≤ ${p.slice(2)}` : p;
  }
  if (!targets.length) params.target = lang === 'ja' ? 'データ' : 'the data';
  else if (lang === 'ja') params.target = targets.map(quote).join('');
  else params.target = targets.length === 1 ? quote(targets[0]) : `${targets.slice(0, -1).map(quote).join(', ')} and ${quote(targets[targets.length - 1])}`;
  return fill(t[lang], params);
}

export function methodName(r: Pick<TestResult, 'method' | 'test_type'>, lang: Lang): string {
  return (testNames[r.method] ?? testNames[r.test_type])?.[lang] ?? r.test_type;
}

/** What eval/result gives: the decision and the interpretation in both languages. */
export function evaluation(r: TestResult) {
  const both = (f: (lang: Lang) => string) => ({ en: f('en'), ja: f('ja') });
  return {
    reject: r.reject,
    p_value: r.p_value,
    alpha: r.alpha,
    statistic_text: statText(r),
    p_text: `p ${pText(r.p_value)}`,
    method_name: both((l) => methodName(r, l)),
    sentence: both((l) => decisionSentence(r, l)),
    effect_size: r.effect_size
      ? {
          ...r.effect_size,
          name: both((l) => effectNames[r.effect_size!.kind]?.[l] ?? r.effect_size!.kind),
          magnitude_text: r.effect_size.magnitude ? both((l) => magnitudes[r.effect_size!.magnitude!]?.[l] ?? '') : null,
        }
      : null,
    warnings: r.warnings.map((w) => ({ code: w.code, params: w.params, text: both((l) => warningText(w, l, r.test_type)) })),
  };
}

// ---- files ----------------------------------------------------------------------------------------

/** Shared CSV writer (formulas neutralised); infinite figures as Inf / -Inf. */
const csvRow = (cells: unknown[]) => sharedCsvRow(cells, { infinity: ['Inf', '-Inf'] });

export interface ProjectInfo {
  name: string;
  dataset_name: string;
  test_type: string;
  finished_at: string | null;
}

/** The result as CSV (UTF-8 with BOM for spreadsheet programs): summary, groups, checks, and test-specific tables. */
export function resultCsv(p: ProjectInfo, r: TestResult, lang: Lang): string {
  const L = (k: keyof typeof labels) => labels[k][lang];
  const rows: string[] = [];
  rows.push(csvRow([lang === 'ja' ? '項目' : 'item', lang === 'ja' ? '値' : 'value']));
  const add = (k: string, v: unknown) => rows.push(csvRow([k, v]));
  add(L('project'), p.name);
  add(L('dataset'), p.dataset_name);
  add(L('test'), methodName(r, lang));
  add(L('variables'), [r.variables.variable1, r.variables.variable2, r.variables.category].filter(Boolean).join(' / '));
  add(L('alternative'), alternativeNames[r.alternative]?.[lang] ?? r.alternative);
  add(L('alpha'), r.alpha);
  add(`${L('statistic')} (${r.statistic?.symbol ?? ''})`, r.statistic?.value);
  if (r.df !== null && r.df !== undefined) add(L('df'), r.df2 !== null && r.df2 !== undefined ? `${r.df}; ${r.df2}` : r.df);
  add(L('p_value'), r.p_value);
  add(L('decision'), r.reject ? L('reject') : L('keep'));
  add(lang === 'ja' ? '結論' : 'Conclusion', decisionSentence(r, lang));
  if (r.estimate) add(`${L('estimate')} (${estimateNames[r.estimate.kind]?.[lang] ?? r.estimate.kind})`, r.estimate.value);
  if (r.ci) {
    add(`${L('ci')} ${percent(r.ci.level)} ${lang === 'ja' ? '下限' : 'low'}`, r.ci.low);
    add(`${L('ci')} ${percent(r.ci.level)} ${lang === 'ja' ? '上限' : 'high'}`, r.ci.high);
  }
  if (r.effect_size) add(`${L('effect')} (${effectNames[r.effect_size.kind]?.[lang] ?? r.effect_size.kind})`, r.effect_size.value);
  rows.push('');
  rows.push(csvRow([L('group'), 'n', 'missing', 'mean', 'sd', 'se', 'median', 'q1', 'q3', 'min', 'max', 'ci_low', 'ci_high']));
  for (const g of descriptiveRows(r)) {
    rows.push(csvRow([g.label, g.n, g.missing, g.mean, g.sd, g.se, g.median, g.q1, g.q3, g.min, g.max, g.ci_low, g.ci_high]));
  }
  if (r.assumptions.length) {
    rows.push('');
    rows.push(csvRow([L('assumptions'), 'method', 'target', 'statistic', 'p_value', 'passed']));
    for (const a of r.assumptions) rows.push(csvRow([a.check, a.method, a.target, a.statistic, a.p_value, a.passed]));
  }
  if (r.test_type === 'anova') {
    rows.push('');
    rows.push(csvRow([L('post_hoc'), 'b', 'difference', 'ci_low', 'ci_high', 'p_adj', 'reject']));
    for (const x of r.post_hoc.pairs) rows.push(csvRow([x.a, x.b, x.difference, x.low, x.high, x.p_value, x.reject]));
  }
  if (r.test_type === 'chi_square') {
    const table = r.table;
    rows.push('');
    rows.push(csvRow([`${table.row_variable} \\ ${table.column_variable}`, ...table.columns]));
    table.rows.forEach((name, i) => rows.push(csvRow([name, ...table.observed[i]])));
    rows.push('');
    rows.push(csvRow([`expected: ${table.row_variable} \\ ${table.column_variable}`, ...table.columns]));
    table.rows.forEach((name, i) => rows.push(csvRow([name, ...table.expected[i]])));
  }
  if (r.warnings.length) {
    rows.push('');
    rows.push(csvRow([L('warnings')]));
    for (const w of r.warnings) rows.push(csvRow([warningText(w, lang, r.test_type)]));
  }
  return '\ufeff' + rows.join('\r\n') + '\r\n';
}

/** One row per project, for POST statistical/analysis/download. */
export function summaryCsv(items: { project: ProjectInfo & { state: string; id: string }; result: TestResult | null }[], lang: Lang): string {
  const rows = [csvRow(['id', 'name', 'dataset', 'test', 'state', 'statistic', 'value', 'df', 'df2', 'p_value', 'alpha', 'reject', 'estimate', 'ci_low', 'ci_high', 'effect_size', 'effect_value', 'conclusion', 'finished_at'])];
  for (const { project: p, result: r } of items) {
    rows.push(
      csvRow([
        p.id, p.name, p.dataset_name, r ? methodName(r, lang) : (testNames[p.test_type]?.[lang] ?? p.test_type), p.state,
        r?.statistic?.symbol, r?.statistic?.value, r?.df, r?.df2, r?.p_value, r?.alpha, r ? r.reject : '',
        r?.estimate?.value, r?.ci?.low, r?.ci?.high, r?.effect_size?.kind, r?.effect_size?.value, r ? decisionSentence(r, lang) : '', p.finished_at,
      ]),
    );
  }
  return '\ufeff' + rows.join('\r\n') + '\r\n';
}
