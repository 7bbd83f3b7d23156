import type { ColumnStatistics } from '../../api/types';

/** Histogram for numbers (and datetimes), top values for categories; none when it would say nothing. */
export function chartKind(column: ColumnStatistics): 'histogram' | 'top' | null {
  if (column.histogram && column.histogram.counts.length > 0 && (column.kind === 'numeric' || column.kind === 'datetime')) return 'histogram';
  // For near-unique values (timestamps, ids) every bar of a top-values chart would be 1.
  const top = column.top ?? [];
  if (top.length > 0 && (column.kind === 'categorical' || column.kind === 'boolean' || top.some((v) => v.count > 1))) return 'top';
  return null;
}
