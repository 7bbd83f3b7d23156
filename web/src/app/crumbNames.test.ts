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
  it('gives up on data nested deeper than it looks', () => {
    expect(findName({ a: { b: { c: { d: { e: { id: 'deep', name: 'Too deep' } } } } } }, 'deep')).toBeNull();
    expect(findName(null, 'x')).toBeNull();
  });
});
