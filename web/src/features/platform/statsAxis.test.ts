import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DISPLAY, setDisplaySettings } from '../../lib/format';
import { statsTimeAxis } from './statsAxis';

afterEach(() => setDisplaySettings(DEFAULT_DISPLAY));

describe('statsTimeAxis', () => {
  it("shows hour buckets (UTC) at the user's offset, as the page's other times", () => {
    const axis = statsTimeAxis(['2026-11-27T23:00', '2026-11-28T00:00'], 'hour');
    expect(axis.labels).toEqual(['28/11/2026, 08:00', '28/11/2026, 09:00']);
    expect(axis.zone).toBe('UTC+09:00');
    setDisplaySettings({ tzOffsetMinutes: -300, clock24h: true });
    expect(statsTimeAxis(['2026-11-27T23:00'], 'hour')).toEqual({ labels: ['27/11/2026, 18:00'], zone: 'UTC-05:00' });
  });

  it('names day buckets as the UTC days they are', () => {
    expect(statsTimeAxis(['2026-11-27'], 'day')).toEqual({ labels: ['2026-11-27'], zone: 'UTC' });
  });
});
