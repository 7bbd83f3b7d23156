import { afterEach, describe, expect, it } from 'vitest';
import i18n from '../i18n';
import { formatAxisNumber } from '../lib/format';
import { localiseNumbers } from './numbers';

afterEach(() => i18n.changeLanguage('en'));

type Axis = { axisLabel: { formatter: (v: number) => string } };
type Opt = { xAxis: Axis; yAxis: Axis & Axis[]; tooltip: { valueFormatter: (v: unknown) => string } };

describe('chart numbers (issue 21)', () => {
  it('writes ticks in the locale without float noise', () => {
    expect(formatAxisNumber(0.1 + 0.2)).toBe('0.3');
    expect(formatAxisNumber(12500)).toBe('12,500');
    expect(formatAxisNumber(-2.5)).toBe('-2.5');
    expect(formatAxisNumber(3e-9)).toBe('3.0e-9');
  });

  it('formats value axes and tooltips a chart leaves alone, and nothing it formats itself', () => {
    const own = (v: number) => `${v} MPa`;
    const o = localiseNumbers({
      tooltip: { trigger: 'axis' },
      xAxis: { type: 'category', data: ['a'] },
      yAxis: [{ type: 'value' }, { type: 'value', axisLabel: { formatter: own } }],
    }) as unknown as Opt;
    expect(o.xAxis.axisLabel).toBeUndefined();
    expect(o.yAxis[0].axisLabel.formatter(1234.5)).toBe('1,234.5');
    expect(o.yAxis[1].axisLabel.formatter).toBe(own);
    expect(o.tooltip.valueFormatter(0.30000000000000004)).toBe('0.3');
    const bare = localiseNumbers({ xAxis: {}, yAxis: {} }) as unknown as Opt;
    expect(bare.xAxis.axisLabel).toBeUndefined(); // x defaults to a category axis
    expect(typeof bare.yAxis.axisLabel.formatter).toBe('function');
  });
});
