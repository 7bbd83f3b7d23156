import { useTranslation } from 'react-i18next';
import type { Step } from './api';

/** One line saying what a step does: its columns, its mapping and its parameters in the UI language. */
export function useStepSummary() {
  const { t } = useTranslation('preprocessing');
  return (s: Step) => {
    const parts: string[] = [];
    if (s.columns.length) parts.push(s.columns.join(', '));
    if (s.process_type === 'columns' && s.params.mapping) parts.push(Object.entries(s.params.mapping).map(([a, b]) => `${a} → ${b}`).join(', '));
    for (const [k, v] of Object.entries(s.params)) {
      if (k !== 'mapping') parts.push(`${t(`params.${k}`)}: ${t(`options.${k}.${String(v)}`, { defaultValue: String(v) })}`);
    }
    return parts.join(' · ');
  };
}
