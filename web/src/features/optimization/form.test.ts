import { describe, expect, it } from 'vitest';
import { defaultFeature, defaultTarget, parseTerms, toSettings } from './form';

const base = {
  models: [{ project_id: 'p', model_key: '1_random_forest' }],
  targets: [defaultTarget('strength')],
  features: [defaultFeature({ name: 'cement', kind: 'numeric', min: 102, max: 540, mean: 281, levels: [] })],
  constraints: [],
  algorithms: ['tpe' as const],
  nTrials: '10',
  seed: '0',
  forbidExtrapolation: false,
};

describe('optimisation wizard settings', () => {
  it('turns the form into API settings with the training range as default', () => {
    const s = toSettings({ ...base, constraints: [{ name: 'cost', type: 'linear', terms: '0.1*cement', operator: '<=', value: '40' }] });
    expect(s).toMatchObject({ n_trials: 10, features: [{ name: 'cement', kind: 'range', lower: 102, upper: 540 }], constraints: [{ coefficients: { cement: 0.1 }, operator: '<=', value: 40 }] });
  });

  it('names the field of each bad input', () => {
    expect(toSettings({ ...base, models: [] })).toEqual({ key: 'errors.noModel' });
    expect(toSettings({ ...base, features: [{ ...base.features[0], lower: '600' }] })).toEqual({ key: 'errors.rangeInverted', params: { field: 'cement' } });
    expect(toSettings({ ...base, features: [{ ...base.features[0], lower: '1.123456789' }] })).toEqual({ key: 'errors.decimals', params: { field: 'cement' } });
    expect(toSettings({ ...base, features: [{ ...base.features[0], kind: 'discrete', values: '7, soon' }] })).toEqual({ key: 'errors.number', params: { field: 'cement' } });
    expect(toSettings({ ...base, algorithms: [] })).toEqual({ key: 'errors.algorithm' });
    expect(toSettings({ ...base, constraints: [{ name: 's', type: 'sum', terms: 'cement', operator: '=', value: '100' }] })).toEqual({ key: 'errors.sumTwo', params: { field: 's' } });
  });

  it('keeps the operator chosen for a sum constraint (issue 30: it is run as given)', () => {
    const sum = (operator: '<=' | '>=' | '=') => toSettings({ ...base, features: [base.features[0], { ...base.features[0], name: 'water' }], constraints: [{ name: 's', type: 'sum', terms: 'cement, water', operator, value: '600' }] });
    expect(sum('<=')).toMatchObject({ constraints: [{ type: 'sum', features: ['cement', 'water'], operator: '<=', value: 600 }] });
    expect(sum('=')).toMatchObject({ constraints: [{ type: 'sum', operator: '=' }] });
  });

  it('reads linear terms with implicit coefficients', () => {
    expect(parseTerms('0.1*cement + water + -2*slag')).toEqual({ cement: 0.1, water: 1, slag: -2 });
    expect(parseTerms('')).toMatchObject({ key: 'errors.terms' });
  });
});
