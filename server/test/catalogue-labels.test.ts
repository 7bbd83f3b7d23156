import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { readCatalogue } from '../src/features/training/stored.js';
import { localAlgorithms as localIn, PROJECT_TYPES, type ProjectType } from '../src/features/training/types.js';

// The catalogue the server reads (MITATE_ML_CATALOGUE, else the engine's).
const catalogue = readCatalogue(loadConfig().mlCatalogue);
const localAlgorithms = (type: ProjectType, lang: 'en' | 'ja') => localIn(catalogue, type, lang);

describe('the wizard says each hyper-parameter choice in words', () => {
  it('labels every choice in both languages, a plain number as itself', () => {
    for (const lang of ['en', 'ja'] as const) {
      for (const type of PROJECT_TYPES) {
        for (const a of localAlgorithms(type, lang)) {
          for (const p of a.params.filter((q) => q.kind === 'choice')) {
            expect(p.choice_labels, `${type}/${a.key}/${p.name}`).toHaveLength(p.choices!.length);
            p.choices!.forEach((c, i) => {
              const label = p.choice_labels![i];
              if (/^\d+(\.\d+)?$/.test(String(c))) expect(label).toBe(String(c));
              else expect(label, `${a.key}/${p.name}/${c}`).not.toMatch(/^ml_choice_/);
            });
          }
        }
      }
    }
    const svr = (lang: 'en' | 'ja') => localAlgorithms('regression', lang).find((a) => a.key === 'svr')!.params.find((p) => p.name === 'kernel')!;
    expect(svr('en').choice_labels).toEqual(['RBF (Gaussian): curved relations', 'Linear: straight relations', 'Polynomial', 'Sigmoid']);
    expect(svr('ja').choice_labels?.[0]).toBe('RBF（ガウス）：曲線的な関係');
    const knn = localAlgorithms('regression', 'ja').find((a) => a.key === 'knn')!.params.find((p) => p.name === 'weights')!;
    expect(knn.choices).toEqual(['uniform', 'distance']); // the values sent back stay the library's
    expect(knn.choice_labels).toEqual(['すべての近傍を同じ重みで', '近い近傍ほど重く']);
  });
});
