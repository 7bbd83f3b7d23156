import i18n from '../../i18n';
import { describe, expect, it } from 'vitest';
import { columnKind, columnTypeLabel } from './labels';

describe('column type names (issue 33)', () => {
  it('maps every spelling of a type (DOUBLE, double, int64, float…) onto one name per language', async () => {
    expect(['DOUBLE', 'double', 'float', 'float64', 'DECIMAL(18,3)'].map(columnKind)).toEqual(['float', 'float', 'float', 'float', 'float']);
    expect(['BIGINT', 'int64', 'integer', 'INTEGER'].map(columnKind)).toEqual(['integer', 'integer', 'integer', 'integer']);
    expect(['VARCHAR', 'string', 'object'].map(columnKind)).toEqual(['string', 'string', 'string']);
    expect(columnKind('TIMESTAMP')).toBe('datetime');
    expect(columnKind('BLOB')).toBeNull();
    await i18n.changeLanguage('en');
    expect(columnTypeLabel(i18n.t, 'DOUBLE')).toBe('Decimal');
    expect(columnTypeLabel(i18n.t, 'int64')).toBe('Integer');
    expect(columnTypeLabel(i18n.t, 'BLOB')).toBe('BLOB');
    await i18n.changeLanguage('ja');
    expect(['DOUBLE', 'float', 'double'].map((x) => columnTypeLabel(i18n.t, x))).toEqual(['小数', '小数', '小数']);
    expect(['int64', 'integer'].map((x) => columnTypeLabel(i18n.t, x))).toEqual(['整数', '整数']);
    expect(columnTypeLabel(i18n.t, 'other')).toBe('その他');
    await i18n.changeLanguage('en');
  });
});
