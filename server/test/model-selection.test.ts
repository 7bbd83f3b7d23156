import { describe, expect, it } from 'vitest';
import type { TrainingModelTable } from '../src/features/training/db.js';
import { bestModel, selectionBasis } from '../src/features/training/service.js';

const model = (key: string, test: Record<string, number>, cvMean: number | null, state = 'done'): TrainingModelTable => ({
  id: key, organisation_id: 'o', project_id: 'p', model_index: 0, model_key: key, algorithm: key, params_json: '{}', state,
  metrics_json: JSON.stringify(test), summary_json: JSON.stringify({ cv: cvMean == null ? null : { metric: 'score', folds: [cvMean], mean: cvMean, std: 0 } }), // as the engine writes it (ml/trainer.py)
  error: null, log: null, run_key: null, trained_at: null, created_at: '',
});

/** Issue 15: the best model was the one with the highest TEST score (anes96: LightGBM test 0.894 over logistic 0.873,
 * while cross-validation ranks logistic first, 0.921). It must be chosen on validation. */
describe('best model selection', () => {
  it('chooses on the cross-validated score, not the test score (anes96 figures)', () => {
    const models = [model('1_logistic', { accuracy: 0.873 }, 0.921), model('2_lightgbm', { accuracy: 0.894 }, 0.9), model('3_random_forest', { accuracy: 0.88 }, 0.905)];
    expect(bestModel('discriminant_analysis', models)?.model_key).toBe('1_logistic');
    expect(selectionBasis('discriminant_analysis')).toBe('cross_validation');
  });
  it('a soft sensor is chosen on pooled forward-validation Q²', () => {
    const models = [model('1_pls', { r2: 0.2 }, 0.7), model('2_lightgbm', { r2: 0.5 }, 0.4)];
    expect(bestModel('soft_sensor', models)?.model_key).toBe('1_pls');
    expect(selectionBasis('soft_sensor')).toBe('forward_validation');
  });
  it('a model whose validation is still pending, or that failed, is not chosen', () => {
    expect(bestModel('regression', [model('1_ridge', { r2: 0.99 }, null)])).toBeUndefined();
    expect(bestModel('regression', [model('1_ridge', { r2: 0.5 }, 0.9, 'failed'), model('2_svr', { r2: 0.4 }, 0.3)])?.model_key).toBe('2_svr');
  });
  it('unsupervised types keep their own score', () => {
    expect(bestModel('clustering', [model('1_kmeans', { silhouette: 0.4 }, null), model('2_gmm', { silhouette: 0.6 }, null)])?.model_key).toBe('2_gmm');
  });
});
