import type { ColumnStatistics } from '../../api/types';

/** Histogram for numbers (and datetimes), top values for categories; none when it would say nothing. */
export function chartKind(column: ColumnStatistics): 'histogram' | 'top' | null {
  if (column.kind === 'numeric' || column.kind === 'datetime') return column.histogram.counts.length > 0 ? 'histogram' : null;
  return column.top.length > 0 ? 'top' : null;
}
