import { afterEach, describe, expect, it } from 'vitest';
import { setSession } from '../../api/session';
import { createQueryClient } from '../../app/queryClient';
import { json, mockFetch } from '../../test/utils';
import type { components } from '../../api/schema';
import { answerQuery } from './api';
import { unpackScatter } from './packed';

const b64 = (a: Int32Array) => btoa(String.fromCharCode(...new Uint8Array(a.buffer)));
const scatter: components['schemas']['ScatterView'] = {
  x: 'x', y: 'y', x_type: 'float', y_type: 'float', total: 3, rows: 3, sample: false, returned: 3, color: null, color_kind: null, mode: 'sample',
  packed_points: { x: { dtype: 'i32', scale: 10, data: b64(Int32Array.from([15, 20, 25])) }, y: { dtype: 'i32', scale: 1, data: b64(Int32Array.from([1, 2, 3])) }, color: null, color_categories: null },
};

afterEach(() => setSession(null));

describe('exploration answers asked again', () => {
  it('send the tag of the answer held under the same key and keep it on 304: the same unpacked points', async () => {
    setSession({ access_token: 'a', refresh_token: 'r', expires_at: Date.now() + 3_600_000 });
    const calls = mockFetch({
      'POST /api/visualization/scatter/d1': (c) =>
        c.headers.get('If-None-Match') === '"s1"' ? new Response(null, { status: 304, headers: { ETag: '"s1"' } }) : json({ detail: { response: scatter } }, 200, { ETag: '"s1"' }),
    });
    const client = createQueryClient();
    const queryKey = ['visualization', 'scatter', 'd1', { x: 'x', y: 'y' }];
    const ask = () => client.fetchQuery({ queryKey, ...answerQuery('/api/visualization/scatter/{dataset_id}', { dataset_id: 'd1' }, { x: 'x', y: 'y', format: 'packed' }, unpackScatter), staleTime: 0 });
    const first = await ask();
    expect(first.value.points).toEqual([[1.5, 1], [2, 2], [2.5, 3]]);
    expect(answerQuery('/api/visualization/scatter/{dataset_id}', { dataset_id: 'd1' }, { x: 'x', y: 'y' }, unpackScatter).select(first)).toBe(first.value);
    const again = await ask();
    expect(calls.map((c) => c.headers.get('If-None-Match'))).toEqual([null, '"s1"']);
    expect(again.value).toBe(first.value);
    // Another question (another key) holds nothing: asked without a tag.
    await client.fetchQuery({ queryKey: [...queryKey, 'other'], ...answerQuery('/api/visualization/scatter/{dataset_id}', { dataset_id: 'd1' }, { x: 'x', y: 'y', format: 'packed' }, unpackScatter) });
    expect(calls[2].headers.get('If-None-Match')).toBeNull();
  });
});
