import type { TFunction } from 'i18next';
import { ALGORITHMS } from './api';

/**
 * How the engine chose the runs (engine optimal_design/design.py `method`), in the reader's language: a named search, or the
 * design's own algorithm; a method this page does not know yet is shown as the engine wrote it rather than hidden.
 */
export function methodLabel(t: TFunction, method: string): string {
  if ((ALGORITHMS as readonly string[]).includes(method)) return t(`algorithm.${method}`);
  return t(`methodName.${method}`, { defaultValue: method });
}
