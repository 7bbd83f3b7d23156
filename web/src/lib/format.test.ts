import { describe, expect, it } from 'vitest';
import { formatUnique } from './format';

describe('formatUnique', () => {
  it('marks an estimated count of distinct values with ≈ and writes an exact one as it is', () => {
    expect(formatUnique({ unique: 4889466, unique_exact: false })).toBe('≈ 4,889,466');
    expect(formatUnique({ unique: 2773, unique_exact: true })).toBe('2,773');
    // datasets registered before the flag existed were all estimated
    expect(formatUnique({ unique: 12 })).toBe('≈ 12');
    expect(formatUnique({ unique: null })).toBe('');
  });
});

