import { describe, expect, it } from 'vitest';

// every English string the user reads: the app's and each area's
const bundles = import.meta.glob<{ default: unknown }>(['./en.json', '../features/*/i18n/en.json'], { eager: true });

const strings = (v: unknown): string[] => (typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : []);

describe('English wording', () => {
  it("spells the area's name as SPEC does (Optimization, optimize), never 'optimis…', nor 'maximise', 'minimise' (issue 33)", () => {
    expect(Object.keys(bundles).length).toBeGreaterThan(10);
    const british = Object.entries(bundles).flatMap(([file, m]) => strings(m.default).filter((s) => /optimis|maximis|minimis/i.test(s)).map((s) => `${file}: ${s}`));
    expect(british).toEqual([]);
  });
});
