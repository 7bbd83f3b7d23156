import { STEP_METHODS } from '@mitate/rules';
import type { components } from '../../api/schema';
import { isOneOf } from '../../api/types';
import type { Step } from './api';

/** A step as a request declares it: each kind with its own methods (the answer says `method: string`). */
export type StepBody = components['schemas']['PreprocessStepBodyInput'];
type Kind = StepBody['process_type'];
type MethodOf<K extends Kind> = Extract<StepBody, { process_type: K }>['method'];

/** The methods of each kind (one list with the server's request schema: @mitate/rules), checked against the declared body. */
export const METHODS = STEP_METHODS satisfies { [K in Kind]: readonly MethodOf<K>[] };

/** A method no kind knows: the step cannot be sent (the editor offers only the catalogue's methods). */
function unknownMethod(s: { process_type: string; method: string }): never {
  throw new TypeError(`unknown method ${s.method} of a ${s.process_type} step`);
}

/** A step without a parameter its kind needs: the editor sends none (stepProblem holds it back first). */
function incomplete(s: { process_type: string }): never {
  throw new TypeError(`a ${s.process_type} step lacks a parameter it needs`);
}

/** A step (as answers and the editor hold it) as the request body declares it. */
export function stepBody(s: Step): StepBody {
  switch (s.process_type) {
    case 'outliers':
      return isOneOf(METHODS.outliers, s.method) ? { ...s, method: s.method } : unknownMethod(s);
    case 'missing':
      return isOneOf(METHODS.missing, s.method) ? { ...s, method: s.method } : unknownMethod(s);
    case 'scaling':
      return isOneOf(METHODS.scaling, s.method) ? { ...s, method: s.method } : unknownMethod(s);
    case 'computed': {
      const { name, expression } = s.params;
      if (name === undefined || expression === undefined) return incomplete(s);
      return isOneOf(METHODS.computed, s.method) ? { ...s, method: s.method, params: { name, expression } } : unknownMethod(s);
    }
    case 'window':
      return isOneOf(METHODS.window, s.method) ? { ...s, method: s.method } : unknownMethod(s);
    case 'columns':
      return isOneOf(METHODS.columns, s.method) ? { ...s, method: s.method } : unknownMethod(s);
    case 'filter': {
      const { column, op } = s.params;
      if (column === undefined || op === undefined) return incomplete(s);
      return isOneOf(METHODS.filter, s.method) ? { ...s, method: s.method, params: { ...s.params, column, op } } : unknownMethod(s);
    }
    case 'sort':
      return isOneOf(METHODS.sort, s.method) ? { ...s, method: s.method } : unknownMethod(s);
  }
}
