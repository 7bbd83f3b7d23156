import { describe, expect, it } from 'vitest';
import { findName } from './crumbNames';

describe('findName', () => {
  const project = { project_id: 'p1', id: 'p1', name: 'Strength model', dataset_id: 'd1', models: [{ id: 'm1', model_key: '1_ridge' }] };
  it('finds an object by its own id, in an envelope or a list', () => {
    expect(findName({ detail: { response: project } }, 'p1')).toBe('Strength model');
    expect(findName({ items: [{ id: 'd0', name: 'Other' }, { id: 'd1', name: 'Concrete' }], total: 2 }, 'd1')).toBe('Concrete');
    expect(findName({ prediction_id: 'x9', name: 'Tomorrow' }, 'x9')).toBe('Tomorrow');
  });
  it('never names an id after an object that only refers to it', () => {
    expect(findName(project, 'd1')).toBeNull();
    expect(findName(project, 'm1')).toBeNull(); // the model has no name field
  });
  it('calls a model by its label (the detector in the reader\'s language) when it carries one', () => {
    expect(findName({ ...project, models: [{ id: 'm1', model_key: '1_pca_mspc', label: 'PCA-MSPC（T²・Q統計量）' }] }, '1_pca_mspc')).toBe('PCA-MSPC（T²・Q統計量）');
    expect(findName(project, '1_ridge')).toBeNull(); // no label: the key stays as it is
  });
  it('gives up on data nested deeper than it looks', () => {
    expect(findName({ a: { b: { c: { d: { e: { id: 'deep', name: 'Too deep' } } } } } }, 'deep')).toBeNull();
    expect(findName(null, 'x')).toBeNull();
  });
});
