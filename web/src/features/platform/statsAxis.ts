import { formatDateTime, formatOffset, getDisplaySettings } from '../../lib/format';

/**
 * The request-statistics chart's time axis. Hour buckets come as UTC ('2026-11-27T23:00') and are shown at the
 * user's offset like every other time on the page; day buckets are UTC days, shown as such and named so.
 */
export function statsTimeAxis(times: string[], bucket: 'hour' | 'day') {
  if (bucket === 'day') return { labels: times, zone: 'UTC' };
  return { labels: times.map((t) => formatDateTime(`${t}Z`)), zone: formatOffset(getDisplaySettings().tzOffsetMinutes) };
}
