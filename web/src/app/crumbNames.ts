import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useCallback, useSyncExternalStore } from 'react';

/** Field names under which an object carries its own id; `name` is what a person calls it (a model: `label`, by `model_key`). */
const ID_FIELDS = ['id', 'project_id', 'prediction_id'] as const;
const MAX_DEPTH = 4;
const MAX_ITEMS = 200;

/**
 * Pure: the name of the object whose own id is `id`, found in already-loaded data (depth- and size-bounded).
 * An object matches only through its own id fields, never through a reference to another (a project's
 * `dataset_id` does not make the project's name the dataset's).
 */
export function findName(value: unknown, id: string, depth = 0): string | null {
  if (!value || typeof value !== 'object' || depth > MAX_DEPTH) return null;
  if (Array.isArray(value)) {
    for (const item of value.slice(0, MAX_ITEMS)) {
      const n = findName(item, id, depth + 1);
      if (n) return n;
    }
    return null;
  }
  const o = value as Record<string, unknown>;
  if (typeof o.name === 'string' && o.name && ID_FIELDS.some((f) => o[f] === id)) return o.name;
  // a model is known by its key (1_pca_mspc); a model that carries a label (its detector's name, in the reader's language) is called by it
  if (o.model_key === id && typeof o.label === 'string' && o.label) return o.label;
  for (const v of Object.values(o)) {
    if (v && typeof v === 'object') {
      const n = findName(v, id, depth + 1);
      if (n) return n;
    }
  }
  return null;
}

export function nameFromCache(client: QueryClient, id: string): string | null {
  for (const q of client.getQueryCache().getAll()) {
    const n = findName(q.state.data, id);
    if (n) return n;
  }
  return null;
}

/**
 * Names for the id segments of a path, from what the page's own queries have loaded (no request per crumb);
 * an id with no loaded name stays null and is shown as it is.
 */
export function useCrumbNames(ids: string[]): (string | null)[] {
  const client = useQueryClient();
  const key = ids.join('\u0000');
  const subscribe = useCallback((onChange: () => void) => client.getQueryCache().subscribe(onChange), [client]);
  // A string snapshot, so React re-renders only when a resolved name changes.
  const snapshot = useCallback(
    () => (key ? key.split('\u0000').map((id) => nameFromCache(client, id) ?? '').join('\u0000') : ''),
    [client, key],
  );
  const joined = useSyncExternalStore(subscribe, snapshot, snapshot);
  return key ? joined.split('\u0000').map((n) => n || null) : [];
}
