import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { DATABASES, makeTestApp, registerAndLogin, type TestApp, upload } from './helpers.js';

/** A small OK/NG ZIP (PNG, JPEG and 16-bit TIFF of mixed sizes) written by the engine's own PIL: no image library in Node. */
function makeZip(pythonPath: string, dir: string, tiffOnly = false): Buffer {
  const zip = path.join(dir, 'set.zip');
  const code = `
import io, zipfile, numpy as np
from PIL import Image
rng = np.random.default_rng(0)
with zipfile.ZipFile(r"${zip}", "w") as z:
    for cls in ("OK", "NG"):
        for i in range(12):
            w, h = 80 + 4 * i, 60
            a = (128 + rng.normal(0, 8, (h, w))).clip(0, 255)
            if cls == "NG":
                a[20:24, 10:70] = 20
            b = io.BytesIO()
            if ${tiffOnly ? 'True' : 'i % 4 == 3'}:
                Image.fromarray((a * 200).astype(np.uint16)).save(b, "TIFF"); ext = "tif"
            else:
                Image.fromarray(a.astype(np.uint8)).convert("RGB").save(b, "PNG" if i % 2 else "JPEG"); ext = "png" if i % 2 else "jpg"
            z.writestr(f"{cls}/{cls.lower()}_{i:02d}.{ext}", b.getvalue())
`;
  execFileSync(pythonPath, ['-c', code]);
  return fs.readFileSync(zip);
}

describe.each(DATABASES)('image pre-processing on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let bob: Awaited<ReturnType<typeof registerAndLogin>>;
  let viewer: Awaited<ReturnType<typeof registerAndLogin>>;
  let datasetId = '';
  let source: { image: { total: number; counts: Record<string, number> } };
  let tmp = '';
  const call = (method: string, url: string, payload?: unknown, who = alice, lang = 'en') =>
    t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...who.auth, 'accept-language': lang } });
  const body = (res: LightMyRequestResponse) => res.json().detail.response;
  const ops = { crop: { left: 0.1, right: 0.1, top: 0, bottom: 0 }, rotate: 90, resize: { width: 64, height: 48, mode: 'stretch' }, grayscale: true, contrast: 1.4, normalize: 'autocontrast' };

  beforeAll(async () => {
    t = await makeTestApp(kind, { config: { workers: 1 } });
    alice = await registerAndLogin(t.app, 'inspector');
    bob = await registerAndLogin(t.app, 'stranger', 'Other Org');
    viewer = await registerAndLogin(t.app, 'looker', 'Third Org');
    await t.app.ctx.db.updateTable('users').set({ role: 'viewer' }).where('email', '=', viewer.email).execute();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'imgp-'));
    const res = await upload(t.app, alice.auth, { name: 'tiles.zip', content: makeZip(t.app.ctx.config.pythonPath, tmp) }, { training_type: 'analysis' });
    expect(res.statusCode, res.body).toBe(201);
    datasetId = body(res).id;
    source = body(await call('GET', `/api/image/dataset/${datasetId}`));
  }, 900_000);
  afterAll(async () => {
    await t?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('previews before and after on real images, keeping nothing', async () => {
    const jobsBefore = fs.existsSync(path.join(t.dataDir, 'jobs')) ? fs.readdirSync(path.join(t.dataDir, 'jobs')).length : 0;
    const res = await call('POST', `/api/image/preprocess/${datasetId}`, { operations: ops, preview: true, ids: ['000000', '000001'] });
    expect(res.statusCode, res.body).toBe(200);
    const items = body(res).items;
    expect(items.map((i: { id: string }) => i.id)).toEqual(['000000', '000001']);
    expect(items[0].after_size).toEqual([64, 48]);
    expect(items[0].mode).toBe('L');
    expect(items[0].after).toMatch(/^data:image\/png;base64,iVBOR/);
    expect(items[0].before).toMatch(/^data:image\/png;base64,/);
    const jobsAfter = fs.existsSync(path.join(t.dataDir, 'jobs')) ? fs.readdirSync(path.join(t.dataDir, 'jobs')).length : 0;
    expect(jobsAfter).toBe(jobsBefore);
  }, 900_000);

  it('refuses bad settings in the caller’s language, other organisations and viewers', async () => {
    const bad = await call('POST', `/api/image/preprocess/${datasetId}`, { operations: { crop: { left: 0.9 }, brightness: 12 } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail.map((d: { loc: string[] }) => d.loc.join('.')).sort()).toEqual(['body.operations.brightness', 'body.operations.crop.left']);
    expect((await call('POST', `/api/image/preprocess/${datasetId}`, { operations: ops }, bob)).statusCode).toBe(404);
    expect((await call('POST', `/api/image/preprocess/${datasetId}`, { operations: ops }, viewer)).statusCode).toBe(403);
    expect((await call('POST', `/api/image/new_dataset/register/nope`, { name: 'x' })).statusCode).toBe(404);
  });

  it('processes every image, then registers a new dataset with the same classes and splits', async () => {
    const start = await call('POST', `/api/image/preprocess/${datasetId}`, { operations: ops });
    expect(start.statusCode, start.body).toBe(200);
    const tempId = body(start).temp_id;
    // registering before the run is done is refused, or the run is already done: either way no half dataset
    await t.app.ctx.jobs.waitFor(tempId, 300_000);
    const r = body(await call('GET', `/api/image/preprocess/result/${tempId}`));
    expect(r.state).toBe('succeeded');
    expect(r.result.total).toBe(source.image.total);
    expect(r.result.counts).toEqual(source.image.counts);
    expect(r.sample.length).toBeGreaterThan(0);
    expect(r.sample.every((s: { width: number; height: number }) => s.width === 64 && s.height === 48)).toBe(true);
    const thumb = await call('GET', `/api/image/preprocess/result/${tempId}/thumb/${r.sample[0].id}`);
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/jpeg');
    expect((await call('GET', `/api/image/preprocess/result/${tempId}`, undefined, bob)).statusCode).toBe(404);
    expect((await call('POST', `/api/image/new_dataset/register/${tempId}`, { name: 'x' }, bob)).statusCode).toBe(404);
    expect((await call('POST', `/api/image/new_dataset/register/${tempId}`, { name: '' })).statusCode).toBe(422);

    const reg = await call('POST', `/api/image/new_dataset/register/${tempId}`, { name: 'tiles 64x48 grey', comment: 'rotated' });
    expect(reg.statusCode, reg.body).toBe(200);
    const d = body(reg);
    expect(d.name).toBe('tiles 64x48 grey');
    expect(d.preprocessed).toBe(true);
    expect(d.parent_dataset_name).toBe('tiles.zip');
    expect(d.training_type).toBe('analysis');
    expect(d.preprocess_history.at(-1).action_name).toBe('image_preprocess');
    const summary = body(await call('GET', `/api/image/dataset/${d.id}`));
    expect(summary.image.counts).toEqual(source.image.counts);
    expect(summary.image.classes).toEqual(['OK', 'NG']);
    const g = body(await call('GET', `/api/image/dataset/${d.id}/gallery?page_size=5`));
    expect(g.items[0]).toMatchObject({ width: 64, height: 48, mode: 'L' });
    const original = await call('GET', `/api/dataset/download/${d.id}`);
    expect(original.statusCode, original.body).toBe(200);
    expect(original.rawPayload.subarray(0, 2).toString()).toBe('PK');
    const full = await call('GET', `/api/image/dataset/${d.id}/image/${g.items[0].id}`);
    expect(full.statusCode).toBe(200);
    // the new dataset trains like any other: a project can be registered on it
    const p = await call('POST', `/api/project/register/${d.id}`, { project_type: 'analysis', name: 'on preprocessed', models: [{ algorithm: 'patchcore' }] });
    expect([200, 201], p.body).toContain(p.statusCode);
    const listed = body(await call('GET', '/api/image/project/list?project_type=analysis'));
    expect(listed.map((x: { name: string }) => x.name)).toEqual(['on preprocessed']);
    expect(body(await call('GET', '/api/image/project/list?project_type=classification'))).toEqual([]);
    expect(body(await call('GET', '/api/image/project/list', undefined, bob))).toEqual([]);

    const again = await call('POST', `/api/image/new_dataset/register/${tempId}`, { name: 'twice' }, alice, 'ja');
    expect(again.statusCode).toBe(409);
    expect(again.json().detail.response).toBe('この前処理結果はすでにデータセットとして登録されています。');
    expect(body(await call('GET', `/api/image/preprocess/result/${tempId}`)).dataset_id).toBe(d.id);
  }, 900_000);

  it('shows a TIFF original as PNG in the viewer, and gives the original on request', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'tif-'));
    const res = await upload(t.app, alice.auth, { name: 'tiffs.zip', content: makeZip(t.app.ctx.config.pythonPath, dir, true) }, { training_type: 'analysis' });
    expect(res.statusCode, res.body).toBe(201);
    const id = body(res).id;
    const shown = await call('GET', `/api/image/dataset/${id}/image/000000`);
    expect(shown.statusCode, shown.body).toBe(200);
    expect(shown.headers['content-type']).toBe('image/png');
    expect(shown.rawPayload.subarray(1, 4).toString()).toBe('PNG');
    const original = await call('GET', `/api/image/dataset/${id}/image/000000?original=1`);
    expect(original.headers['content-type']).toBe('image/tiff');
    expect((await call('GET', `/api/image/dataset/${id}/image/000000`, undefined, bob)).statusCode).toBe(404);
  }, 900_000);
});
