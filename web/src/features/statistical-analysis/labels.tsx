import Chip from '@mui/material/Chip';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { Project, ProjectState, TestType } from './api';

export const NS = 'statisticalAnalysis';
/** Names the notice that a run is under way (register and re-run show it), withdrawn when the run ends. */
export const RUN_NOTICE = 'statistics.run';

export const testLabel = (t: TFunction, type: string) => t(`tests.${type}.name`, { ns: NS, defaultValue: type });

/** The method actually used (Student or Welch for the two-sample t-test). */
export function methodLabel(t: TFunction, testType: string, method?: string | null): string {
  const base = testLabel(t, testType);
  if (testType === 'two_sample_t' && (method === 'student' || method === 'welch')) return t(`methods.${method}`, { ns: NS });
  return base;
}

/** p-values as R prints them: 4 significant digits, '< 0.0001' below that. */
export function formatP(p: number | null | undefined): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return '—';
  if (p < 1e-4) return '< 0.0001';
  return String(Number(p.toPrecision(4)));
}

export function formatStat(v: number | null | undefined): string {
  if (v === null || v === undefined) return '—';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  const a = Math.abs(v);
  if (Number.isInteger(v) && a < 1e12) return String(v);
  if (a !== 0 && (a < 1e-4 || a >= 1e9)) return v.toExponential(3);
  if (a >= 1000) return String(Number(v.toFixed(2)));
  return String(Number(v.toPrecision(5)));
}

const STATE_COLOR: Record<ProjectState, 'success' | 'info' | 'error' | 'default'> = { done: 'success', running: 'info', failed: 'error', ready: 'default' };

export function StateChip({ state }: { state: ProjectState }) {
  const { t } = useTranslation(NS);
  return <Chip size="small" label={t(`states.${state}`)} color={STATE_COLOR[state] ?? 'default'} variant={state === 'done' ? 'outlined' : 'filled'} />;
}

export function DecisionChip({ reject }: { reject: boolean }) {
  const { t } = useTranslation(NS);
  return <Chip size="small" label={t(reject ? 'decision.reject' : 'decision.keep')} color={reject ? 'warning' : 'default'} variant="outlined" />;
}

/** 'extra by group (1 vs 2)', 'a vs b', 'x, y' … for lists. */
export function variablesText(p: Pick<Project, 'test_type' | 'variable1' | 'variable2' | 'category' | 'group1' | 'group2' | 'groups'>): string {
  if (p.category && p.group1 !== null && p.group2 !== null) return `${p.variable1} · ${p.category}: ${p.group1} / ${p.group2}`;
  if (p.category) return `${p.variable1} · ${p.category}${p.groups.length ? `: ${p.groups.join(' / ')}` : ''}`;
  if (p.variable2) return `${p.variable1} / ${p.variable2}`;
  return p.variable1;
}

/** Which inputs a test takes, and how two groups may be given. */
export type Source = 'columns' | 'split' | 'one';
export function sourcesOf(type: TestType): Source[] {
  switch (type) {
    case 'two_sample_t':
    case 'mann_whitney':
    case 'f_test':
      return ['split', 'columns'];
    case 'paired_t':
      return ['columns', 'split'];
    case 'wilcoxon':
      return ['columns', 'split', 'one'];
    default:
      return [];
  }
}
export const usesCategory = (type: TestType, source: Source | null) => type === 'anova' || source === 'split';
export const hasAlternative = (type: TestType) => !['anova', 'chi_square', 'shapiro'].includes(type);
export const usesMean = (type: TestType, _source?: Source | null) => type === 'one_sample_t' || type === 'paired_t' || type === 'wilcoxon';
export const meanLabelKey = (type: TestType, source: Source | null) =>
  type === 'one_sample_t'
    ? 'fields.hypotheticalMean'
    : type === 'wilcoxon'
      ? source === 'one'
        ? 'fields.hypotheticalMedian'
        : 'fields.hypotheticalMedianDifference'
      : 'fields.hypotheticalDifference';
