import i18next from 'i18next';
import { describe, expect, it } from 'vitest';
import en from './i18n/en.json';
import ja from './i18n/ja.json';
import { methodLabel } from './labels';

describe('design method labels (issue 33)', () => {
  it('names every method the engine writes, in en and ja, and keeps an unknown one as written', async () => {
    const i = i18next.createInstance();
    await i.init({ lng: 'en', resources: { en: { optimalDesign: en }, ja: { optimalDesign: ja } }, ns: ['optimalDesign'], defaultNS: 'optimalDesign' });
    // engine optimal_design/design.py: the algorithm itself, or one of these searches
    const methods = ['simplex_lattice', 'fedorov_exchange', 'fedorov_exchange+coordinate_exchange', 'maximin_latin_hypercube', 'maximin_constrained', 'expected_improvement_kriging_believer'];
    for (const lng of ['en', 'ja']) {
      const t = i.getFixedT(lng, 'optimalDesign');
      for (const m of methods) {
        const label = methodLabel(t, m);
        expect(label).not.toBe(m);
        expect(label).not.toMatch(/_/);
      }
    }
    expect(methodLabel(i.getFixedT('en', 'optimalDesign'), 'expected_improvement_kriging_believer')).toBe('Expected improvement (kriging believer batch)');
    expect(methodLabel(i.getFixedT('en', 'optimalDesign'), 'something_new')).toBe('something_new');
  });
});
