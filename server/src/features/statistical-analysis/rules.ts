import { z } from 'zod';
import { storedJson } from '../../db/stored.js';
import { AppError } from '../../http/errors.js';
import { engineErrorText } from '../../i18n/engine-errors.js';
import type { Lang, LocalText } from '../../i18n/messages.js';
import type { ColumnType } from '../datasets/column-stats.js';
import type { StatisticalProjectTable } from './db.js';
import { type ErrorCode, errors } from './messages.js';
import type { ProjectSettings, TestType } from './schemas.js';
import { statisticalAnalysisJob } from './jobs.js';

// A statistical project's settings checked against its dataset's columns, and its view.

export const SUBJECT = 'statistical_project';
export const MAX_GROUPS = 50;
const NUMERIC: ColumnType[] = ['integer', 'float'];
const CATEGORY: ColumnType[] = ['string', 'integer', 'boolean', 'float'];
export const TWO_GROUPS: TestType[] = ['two_sample_t', 'mann_whitney', 'f_test'];
const ONE_SIDED_OK: TestType[] = ['one_sample_t', 'two_sample_t', 'paired_t', 'mann_whitney', 'wilcoxon', 'pearson', 'spearman', 'f_test'];

export const projectKey = (orgId: string, id: string) => `org/${orgId}/statistical-analysis/${id}`;

export const bad = (field: string, code: ErrorCode, params: Record<string, string | number> = {}) => new AppError(422, errors[code], params, field);
export const now = () => new Date().toISOString();

/** The engine's input errors, said in the reader's language (this area's catalogue first, then the engine's). */
export function jobErrorText(error: string | null, lang: Lang): string | null {
  return engineErrorText(error, lang, errors as Record<string, LocalText>);
}

export type Settings = Omit<ProjectSettings, 'groups'> & { groups: string[] };

/** groups_json: the ANOVA groups as runs.ts stores the settings' `groups` (checked when given). */
const StoredGroups = z.array(z.string());

/** A project's settings as stored on its row (the view shows them, a run's job spec carries them). */
export function settingsOf(row: StatisticalProjectTable): Settings {
  return {
    test_type: row.test_type as TestType,
    variable1: row.variable1,
    variable2: row.variable2,
    category: row.category,
    group1: row.group1,
    group2: row.group2,
    groups: storedJson('statistical project groups', StoredGroups, row.groups_json),
    hypothetical_mean: Number(row.hypothetical_mean),
    significance_level: Number(row.significance_level),
    alternative: row.alternative as Settings['alternative'],
    equal_variance: row.equal_variance as Settings['equal_variance'],
  };
}

export function toView(row: StatisticalProjectTable, lang: Lang) {
  let summary: { statistic: string | null; value: number | null; p_value: number | null; reject: boolean; method: string } | null = null;
  if (row.result_json) {
    const r = statisticalAnalysisJob.parseStored(row.result_json);
    summary = { statistic: r.statistic?.symbol ?? null, value: r.statistic?.value ?? null, p_value: r.p_value, reject: r.reject, method: r.method };
  }
  return {
    id: row.id,
    name: row.name,
    comment: row.comment,
    dataset_id: row.dataset_id,
    dataset_name: row.dataset_name,
    ...settingsOf(row),
    state: row.state,
    job_id: row.job_id,
    error: jobErrorText(row.error, lang),
    summary,
    created_at: row.created_at,
    updated_at: row.updated_at,
    finished_at: row.finished_at,
  };
}

/**
 * The settings checked against the dataset's columns and normalised (fields a test does not use become null).
 * Pure: the rules of SPEC §3's statistical project per test type.
 */
export function normalizeSettings(s: Settings, columns: { name: string; type: ColumnType }[]): Settings {
  const types = new Map(columns.map((c) => [c.name, c.type]));
  if (!(s.significance_level > 0 && s.significance_level < 1)) throw bad('significance_level', 'alpha_range');
  if (!Number.isFinite(s.hypothetical_mean)) throw bad('hypothetical_mean', 'mean_not_finite');
  const exists = (name: string, field: string) => {
    const t = types.get(name);
    if (!t) throw bad(field, 'column_missing', { column: name });
    return t;
  };
  const numeric = (name: string | null, field: string, code: ErrorCode = 'variable2_needed') => {
    if (!name) throw bad(field, field === 'variable1' ? 'variable_required' : code);
    if (!NUMERIC.includes(exists(name, field))) throw bad(field, 'not_numeric', { column: name });
    return name;
  };
  const category = (name: string | null) => {
    if (!name) throw bad('category', 'category_required');
    if (!CATEGORY.includes(exists(name, 'category'))) throw bad('category', 'category_type', { column: name });
    if (name === s.variable1) throw bad('category', 'same_variable');
    return name;
  };
  const twoGroups = () => {
    if (s.group1 === null || s.group2 === null) throw bad(s.group1 === null ? 'group1' : 'group2', 'groups_required');
    if (s.group1 === s.group2) throw bad('group2', 'groups_same');
    return { group1: s.group1, group2: s.group2 };
  };
  const out: Settings = { ...s, groups: [] };
  const t = s.test_type;
  if (!ONE_SIDED_OK.includes(t)) out.alternative = 'two-sided';
  if (t !== 'two_sample_t') out.equal_variance = 'auto';
  const none = { variable2: null, category: null, group1: null, group2: null };
  const v1 = () => numeric(s.variable1 || null, 'variable1');
  switch (t) {
    case 'one_sample_t':
    case 'shapiro':
      return { ...out, variable1: v1(), ...none };
    case 'wilcoxon':
    case 'paired_t': {
      v1();
      if (s.category) {
        const cat = category(s.category);
        if (s.variable2) exists(s.variable2, 'variable2');
        return { ...out, category: cat, ...twoGroups(), variable2: s.variable2 ?? null };
      }
      if (!s.variable2) {
        if (t === 'wilcoxon') return { ...out, ...none };
        throw bad('variable2', 'variable2_required');
      }
      numeric(s.variable2, 'variable2');
      if (s.variable2 === s.variable1) throw bad('variable2', 'same_variable');
      return { ...out, category: null, group1: null, group2: null };
    }
    case 'two_sample_t':
    case 'mann_whitney':
    case 'f_test': {
      v1();
      if (s.category) return { ...out, category: category(s.category), ...twoGroups(), variable2: null };
      if (!s.variable2) throw bad('variable2', 'variable2_required');
      numeric(s.variable2, 'variable2');
      if (s.variable2 === s.variable1) throw bad('variable2', 'same_variable');
      return { ...out, category: null, group1: null, group2: null };
    }
    case 'anova': {
      v1();
      const groups = [...new Set(s.groups.filter((g) => g !== ''))];
      if (groups.length === 1) throw bad('groups', 'too_few_groups');
      return { ...out, ...none, category: category(s.category), groups };
    }
    case 'chi_square': {
      if (!s.variable1) throw bad('variable1', 'variable_required');
      exists(s.variable1, 'variable1');
      const v2 = s.variable2 || s.category;
      if (!v2) throw bad('variable2', 'variable2_needed');
      exists(v2, s.variable2 ? 'variable2' : 'category');
      if (v2 === s.variable1) throw bad('variable2', 'same_variable');
      return { ...out, ...none, variable2: v2 };
    }
    case 'pearson':
    case 'spearman': {
      v1();
      numeric(s.variable2, 'variable2');
      if (s.variable2 === s.variable1) throw bad('variable2', 'same_variable');
      return { ...out, category: null, group1: null, group2: null };
    }
  }
  return out;
}
