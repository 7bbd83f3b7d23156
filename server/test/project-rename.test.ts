import { beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, tiles, upload, zipOf } from './helpers.js';
import { twoOrgs } from './two-orgs.js';

/** Issue 33: every project page offers Rename, so time-series and image projects are renamed as tabular ones are. */
describe.each(DATABASES)('renaming time-series and image projects on %s', (kind) => {
  const { s, call, body, viewer: newViewer } = twoOrgs(kind, { alice: 'renamer', bob: 'stranger' }, 1);
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    const rows = Array.from({ length: 200 }, (_, i) => `${i},${Math.sin(i / 5).toFixed(4)},${(i % 7) / 7}`);
    const table = await upload(s.t.app, s.alice.auth, { name: 'series.csv', content: ['sample,a,b', ...rows].join('\n') }, { type: 'unsupervised' });
    expect(table.statusCode, table.body).toBe(201);
    const ts = await call('POST', `/api/timeseries/register/${body(table).id}`, {
      name: 'Pump series',
      project_type: 'time_series_anomaly_detection_unsupervised',
      time_column: 'sample',
      feature_variables: ['a', 'b'],
      normal: { mode: 'rows', rows: 120 },
      models: [{ algorithm: 'pca_mspc' }],
    });
    expect(ts.statusCode, ts.body).toBe(200);
    ids.ts = body(ts).project_id;
    const zip = await zipOf([...tiles('OK'), ...tiles('NG')]);
    const images = await upload(s.t.app, s.alice.auth, { name: 'tiles.zip', content: zip }, { training_type: 'analysis' });
    expect(images.statusCode, images.body).toBe(201);
    const img = await call('POST', `/api/project/register/${body(images).id}`, { project_type: 'analysis', name: 'Tiles', models: [{ algorithm: 'patchcore' }] });
    expect(img.statusCode, img.body).toBe(200);
    ids.img = body(img).project_id;
  }, 600_000);

  it('renames a time-series project: trimmed, answered with the project, listed under the new name', async () => {
    const res = await call('PUT', `/api/timeseries/project/${ids.ts}`, { name: '  Pump, line 2  ' });
    expect(res.statusCode, res.body).toBe(200);
    expect(body(res)).toMatchObject({ project_id: ids.ts, name: 'Pump, line 2', training_state: 'ready' });
    expect(body(await call('GET', `/api/timseseries/project/${ids.ts}`)).name).toBe('Pump, line 2');
  });

  it('renames an image project', async () => {
    const res = await call('PUT', `/api/image/project/${ids.img}`, { name: 'Tiles, camera B' });
    expect(res.statusCode, res.body).toBe(200);
    expect(body(res)).toMatchObject({ project_id: ids.img, name: 'Tiles, camera B' });
    expect(body(await call('GET', `/api/image/train/result/${ids.img}`)).name).toBe('Tiles, camera B');
  });

  it('refuses an empty name and changes nothing', async () => {
    for (const url of [`/api/timeseries/project/${ids.ts}`, `/api/image/project/${ids.img}`]) {
      const res = await call('PUT', url, { name: '   ' });
      expect(res.statusCode, url).toBe(422);
      expect(res.json().detail[0].loc).toContain('name');
    }
    expect(body(await call('GET', `/api/timseseries/project/${ids.ts}`)).name).toBe('Pump, line 2');
    expect(body(await call('GET', `/api/image/train/result/${ids.img}`)).name).toBe('Tiles, camera B');
  });

  it('each area renames only its own projects; another organisation sees nothing; viewers cannot rename', async () => {
    // the image route does not rename a time-series project, nor the reverse
    expect((await call('PUT', `/api/image/project/${ids.ts}`, { name: 'x' })).statusCode).toBe(404);
    expect((await call('PUT', `/api/timeseries/project/${ids.img}`, { name: 'x' })).statusCode).toBe(404);
    expect((await call('PUT', `/api/timeseries/project/${ids.ts}`, { name: 'theirs' }, s.bob)).statusCode).toBe(404);
    expect((await call('PUT', `/api/image/project/${ids.img}`, { name: 'theirs' }, s.bob)).statusCode).toBe(404);
    const viewer = await newViewer();
    expect((await call('PUT', `/api/timeseries/project/${ids.ts}`, { name: 'viewer' }, viewer)).statusCode).toBe(403);
    expect((await call('PUT', `/api/image/project/${ids.img}`, { name: 'viewer' }, viewer)).statusCode).toBe(403);
    expect(body(await call('GET', `/api/timseseries/project/${ids.ts}`)).name).toBe('Pump, line 2');
    expect(body(await call('GET', `/api/image/train/result/${ids.img}`)).name).toBe('Tiles, camera B');
  });
});
