import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVE_REFUSALS } from '../src/features/platform/schemas.js';
import { DATABASES, makeTestApp, registerAndLogin, STRONG_PASSWORD, type TestApp, tiles, upload, zipOf } from './helpers.js';

process.env.MITATE_TORCH_THREADS = '1'; // the machine is shared; the job worker and the serving processes alike
const ADMIN = `platform.images.${crypto.randomBytes(3).toString('hex')}@example.com`;

function form(parts: { name: string; file?: { name: string; content: Buffer }; value?: string }[]) {
  const boundary = `----mitateserve${crypto.randomBytes(4).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const head = p.file ? `; filename="${p.file.name}"\r\nContent-Type: application/octet-stream` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${head}\r\n\r\n`), p.file ? p.file.content : Buffer.from(p.value ?? ''), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** Hosted image models (issue 31 §3): image OK/NG and classification models behind POST /serve/{key}/predict. */
describe.each(DATABASES)('hosted image models on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let admin: { auth: Record<string, string> };
  const call = (method: string, url: string, payload?: unknown, who: { auth: Record<string, string> } = alice, lang = 'en') =>
    t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...who.auth, 'accept-language': lang } });
  const body = (res: LightMyRequestResponse) => res.json().detail.response;
  // three images the models never saw in training, in three of the accepted formats
  const images: { name: string; content: Buffer }[] = [];
  const apis: Record<'analysis' | 'classification', { project: string; model: string; key: string; secret: string; id: string }> = {} as never;
  let okngDataset = '';

  async function trainedModel(type: 'analysis' | 'classification', datasetId: string) {
    const models = type === 'analysis' ? [{ algorithm: 'patchcore' }] : [{ algorithm: 'compact_cnn', params: { width: 8 } }];
    const reg = await call('POST', `/api/project/register/${datasetId}`, { project_type: type, name: `tiles ${type}`, settings: { image_size: 64, epochs: 2, batch_size: 16, coreset_ratio: 0.1 }, models });
    expect(reg.statusCode, reg.body).toBe(200);
    const projectId = body(reg).project_id;
    const started = body(await call('POST', `/api/train/${projectId}`, {}));
    await t.app.ctx.jobs.waitFor(started.job.id, 900_000);
    const m = body(await call('GET', `/api/image/train/result/${projectId}`)).models[0];
    expect(m.state, JSON.stringify(m)).toBe('done');
    return { project: projectId, model: m.model_key as string };
  }

  async function hosted(type: 'analysis' | 'classification', project: string, model: string) {
    const key = `img-${type.slice(0, 5)}-${crypto.randomBytes(3).toString('hex')}`;
    const created = await call('POST', '/api/platform/projects', { name: `Tiles ${type}`, key, project_id: project, model_key: model, content_language: 'en-gb' });
    expect(created.statusCode, created.body).toBe(201);
    const p = body(created);
    await call('POST', `/api/platform/projects/${p.id}/submit`);
    expect(body(await call('POST', `/api/platform/admin/projects/${p.id}/review`, { decision: 'approve' }, admin)).status).toBe('approved');
    await call('POST', `/api/platform/projects/${p.id}/start`);
    const secret = body(await call('POST', `/api/platform/projects/${p.id}/credentials`, { name: 'line', kind: 'production' })).secret as string;
    return { project, model, key, secret, id: p.id as string, view: p };
  }

  /** The batch prediction (image_predict job) of `images` with the image project's model. */
  async function batch(project: string, model: string) {
    const m = form(images.map((f) => ({ name: 'files', file: f })));
    const res = await t.app.inject({ method: 'POST', url: `/api/prediction/result/${project}/${model}`, payload: m.payload, headers: { ...m.headers, ...alice.auth } });
    expect(res.statusCode, res.body).toBe(200);
    await t.app.ctx.jobs.waitFor(body(res).job_id, 600_000);
    const done = body(await call('GET', `/api/inference/${body(res).id}`));
    expect(done.state).toBe('done');
    return { id: body(res).id as string, rows: done.result.rows as { name: string; predicted: string; score: number; probabilities?: Record<string, number> }[] };
  }

  const serveForm = (api: { key: string; secret: string }, image: Buffer, extra: { name: string; value: string }[] = [], lang = 'en') => {
    const m = form([{ name: 'image', file: { name: 'part.png', content: image } }, ...extra]);
    return t.app.inject({ method: 'POST', url: `/serve/${api.key}/predict`, payload: m.payload, headers: { ...m.headers, 'x-api-key': api.secret, 'accept-language': lang } });
  };
  const serveJson = (api: { key: string; secret: string }, payload: unknown, lang = 'en', query = '') =>
    t.app.inject({ method: 'POST', url: `/serve/${api.key}/predict${query}`, payload: payload as object, headers: { 'x-api-key': api.secret, 'accept-language': lang } });

  beforeAll(async () => {
    process.env.MITATE_PLATFORM_ADMINS = ADMIN;
    t = await makeTestApp(kind, { config: { workers: 1 } });
    alice = await registerAndLogin(t.app, 'inspector');
    const reg = await t.app.inject({ method: 'POST', url: '/account/api/auth/register', payload: { email: ADMIN, password: STRONG_PASSWORD, first_name: 'Pat', last_name: 'Admin', organisation_name: 'Platform' } });
    expect(reg.statusCode).toBe(201);
    const login = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: ADMIN, password: STRONG_PASSWORD } });
    admin = { auth: { authorization: `Bearer ${login.json().detail.response.access_token}` } };
    const user = await t.app.ctx.db.selectFrom('users').select(['id', 'organisation_id']).where('email', '=', alice.email).executeTakeFirstOrThrow();
    await t.app.ctx.db
      .insertInto('identity_verifications')
      .values({ id: crypto.randomUUID(), organisation_id: user.organisation_id, user_id: user.id, state: 'done', front_key: 'x', back_key: 'y', reason: null, submitted_at: new Date().toISOString(), reviewed_at: new Date().toISOString(), reviewed_by: null })
      .execute();

    // a small OK/NG set (every 4th tile) to train on; three other tiles to predict, as JPEG, PNG and TIFF
    const zip = await zipOf([...tiles('OK', 4), ...tiles('NG', 4)]);
    const ds = await upload(t.app, alice.auth, { name: 'tiles.zip', content: zip }, { training_type: 'analysis' });
    expect(ds.statusCode, ds.body).toBe(201);
    const dsc = await upload(t.app, alice.auth, { name: 'tiles-classes.zip', content: zip }, { training_type: 'classification' });
    expect(dsc.statusCode, dsc.body).toBe(201);
    const [ng, ok1, ok2] = [tiles('NG', 1)[1], tiles('OK', 1)[1], tiles('OK', 1)[3]];
    images.push({ name: 'ng.jpg', content: fs.readFileSync(ng.file) });
    images.push({ name: 'ok.png', content: await sharp(ok1.file).png().toBuffer() });
    images.push({ name: 'ok.tiff', content: await sharp(ok2.file).tiff().toBuffer() });
    okngDataset = body(ds).id;
    const a = await trainedModel('analysis', body(ds).id);
    const c = await trainedModel('classification', body(dsc).id);
    apis.analysis = await hosted('analysis', a.project, a.model);
    apis.classification = await hosted('classification', c.project, c.model);
  }, 1_800_000);
  afterAll(async () => {
    delete process.env.MITATE_PLATFORM_ADMINS;
    await t?.close();
  });

  for (const type of ['analysis', 'classification'] as const) {
    it(`serves a ${type} model: the answer equals the batch prediction of the same image`, async () => {
      const api = apis[type];
      const { id, rows } = await batch(api.project, api.model);
      expect(rows.map((r) => r.name)).toEqual(images.map((f) => f.name));
      const detail = body(await call('GET', `/api/detail/${api.project}/${api.model}`));
      for (const [i, f] of images.entries()) {
        const res = await serveForm(api, f.content, [{ name: 'heatmap', value: 'true' }]);
        expect(res.statusCode, res.body).toBe(200);
        const a = body(res);
        expect(a).toMatchObject({ model: api.model, kind: type, predicted: rows[i].predicted });
        expect(Math.abs(a.score - rows[i].score)).toBeLessThanOrEqual(1e-9);
        expect(a.threshold).toBe(type === 'analysis' ? detail.threshold : null);
        if (type === 'classification') expect(a.probabilities).toEqual(rows[i].probabilities);
        // the heat-map is the batch prediction's PNG, byte for byte
        const heat = await call('GET', `/api/image/prediction/${id}/heatmap/${String(i).padStart(6, '0')}`);
        expect(Buffer.from(a.heatmap_png, 'base64').equals(heat.rawPayload)).toBe(true);
        // the same image as base64 JSON: the same answer, no heat-map unless asked
        const j = body(await serveJson(api, { image: f.content.toString('base64') }));
        expect(j.score).toBe(a.score);
        expect(j.predicted).toBe(a.predicted);
        expect(j).not.toHaveProperty('heatmap_png');
      }
      // the project page's description: what the API takes and answers
      const view = body(await call('GET', `/api/platform/projects/${api.id}`));
      expect(view.image).toMatchObject({ kind: type, image_size: 64, formats: ['jpeg', 'png', 'bmp', 'tiff'], classes: expect.arrayContaining(['OK', 'NG']) });
    }, 900_000);
  }

  it('answers at the threshold saved on the image model, as the image area does', async () => {
    const api = apis.analysis;
    const before = body(await serveJson(api, { image: images[0].content.toString('base64') }));
    const target = before.score + 1; // above this image's score: OK at this threshold
    expect(body(await call('POST', `/api/update/threshold/${api.project}/${api.model}`, { threshold: target })).threshold).toBe(target);
    let after = before;
    for (const until = Date.now() + 60_000; after.threshold !== target && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 200));
      after = body(await serveJson(api, { image: images[0].content.toString('base64') }));
    }
    expect(after).toMatchObject({ threshold: target, predicted: 'OK', score: before.score });
    const lower = before.score - 1e-6;
    await call('POST', `/api/update/threshold/${api.project}/${api.model}`, { threshold: lower });
    for (const until = Date.now() + 60_000; after.threshold !== lower && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 200));
      after = body(await serveJson(api, { image: images[0].content.toString('base64') }));
    }
    expect(after).toMatchObject({ threshold: lower, predicted: 'NG' });
  }, 300_000);

  it('refuses what is not one image of an accepted format and size, with a code and words in en and ja; refusals are not billed', async () => {
    const api = apis.analysis;
    await t.app.inject({ method: 'GET', url: `/api/platform/projects/${api.id}/statistics?days=1`, headers: alice.auth });
    const stats = async () => body(await call('GET', `/api/platform/projects/${api.id}/statistics?days=1`));
    const s0 = await stats();
    const gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } }).gif().toBuffer();
    const webp = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } }).webp().toBuffer();
    const cases: [LightMyRequestResponse, number, string, RegExp][] = [
      [await serveForm(api, gif), 422, 'image_format_unsupported', /GIF/],
      [await serveJson(api, { image: webp.toString('base64') }, 'ja'), 422, 'image_format_unsupported', /WebP.*JPEG・PNG・BMP・TIFF/],
      [await serveForm(api, Buffer.from('hello, this is text')), 422, 'image_not_image', /not an image/],
      [await serveJson(api, { image: 'not base64 at all!' }, 'ja'), 422, 'image_not_base64', /base64/],
      [await serveJson(api, { rows: [{ x: 1 }] }), 422, 'image_missing', /field "image"/],
      [await serveJson(api, { image: images[0].content.toString('base64') }, 'en', '?heatmap=maybe'), 422, 'value_error', /./],
      [await serveForm(api, Buffer.concat([images[1].content.subarray(0, 8), Buffer.alloc(7.5 * 1024 * 1024)])), 413, 'image_too_large', /larger than 7 MiB/],
      [await serveForm(api, Buffer.concat([images[1].content.subarray(0, 40), Buffer.alloc(100)])), 422, 'image_unreadable', /could not be read/],
      [await serveForm(api, await sharp({ create: { width: 8000, height: 6000, channels: 3, background: '#000' } }).png().toBuffer(), [], 'ja'), 413, 'image_too_many_pixels', /画素数/],
    ];
    for (const [res, status, code, text] of cases) {
      expect(res.statusCode, res.body).toBe(status);
      const d = res.json().detail;
      const [type, msg] = Array.isArray(d) ? [d[0].type, d[0].msg] : [d.error, d.response];
      expect(type, res.body).toBe(code);
      expect(msg).toMatch(text);
      expect(SERVE_REFUSALS[status as keyof typeof SERVE_REFUSALS].codes as readonly string[]).toContain(code); // documented
    }
    const two = form([{ name: 'image', file: { name: 'a.png', content: images[1].content } }, { name: 'image', file: { name: 'b.png', content: images[1].content } }]);
    const twice = await t.app.inject({ method: 'POST', url: `/serve/${api.key}/predict`, payload: two.payload, headers: { ...two.headers, 'x-api-key': api.secret } });
    expect(twice.json().detail[0].type).toBe('image_one_per_request');
    expect((await serveForm({ ...api, secret: 'mk_live_wrong' }, images[1].content)).statusCode).toBe(401);
    const s1 = await stats();
    expect(s1.total).toBe(s0.total); // refusals are counted apart and never billed
    expect(s1.refused - s0.refused).toBe(cases.length + 2);
    expect(s1.refusals.key - s0.refusals.key).toBe(1);
    expect((await serveForm(api, images[1].content)).statusCode).toBe(200);
    expect((await stats()).total).toBe(s0.total + 1);
  }, 300_000);

  it("watches an OK/NG model's served scores for drift: the validation OK images raise no warning, altered ones do", async () => {
    const api = apis.analysis;
    const project = await t.app.ctx.db.selectFrom('platform_projects').select('model_dir').where('id', '=', api.id).executeTakeFirstOrThrow();
    const reference: number[] = JSON.parse(fs.readFileSync(path.join(t.app.ctx.storage.pathOf(project.model_dir), 'drift_reference.json'), 'utf8')).ok_scores;
    // the validation OK images of the dataset the model was trained on
    const dataset = await t.app.ctx.db.selectFrom('datasets').selectAll().where('id', '=', okngDataset).executeTakeFirstOrThrow();
    const dir = t.app.services.images.datasetDir(dataset);
    const items: { file: string; split: string; label: string }[] = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')).items;
    const okFiles = items.filter((it) => it.split === 'validation' && it.label === 'OK').map((it) => fs.readFileSync(path.join(dir, it.file)));
    expect(okFiles.length).toBe(reference.length);
    await call('PUT', `/api/platform/projects/${api.id}/drift/settings`, { auto_every: 0, window_rows: 50, min_rows: 10 });
    const finished = async () => {
      let v = body(await call('POST', `/api/platform/projects/${api.id}/drift/check`));
      for (const until = Date.now() + 300_000; v.running && Date.now() < until; ) {
        await new Promise((r) => setTimeout(r, 300));
        v = body(await call('GET', `/api/platform/projects/${api.id}/drift`));
      }
      expect(v.latest.state, JSON.stringify(v.latest)).toBe('done');
      return v;
    };
    const serveAll = async (files: Buffer[]) => {
      const scores: number[] = [];
      for (let i = 0; i < 50; i++) scores.push(body(await serveJson(api, { image: files[i % files.length].toString('base64') })).score);
      return scores;
    };
    // unshifted: the served scores are the validation OK scores themselves (scored as after training)
    const steady = await serveAll(okFiles);
    expect(steady.every((s) => reference.some((r) => Math.abs(r - s) <= 1e-9))).toBe(true);
    const calm = await finished();
    expect(calm.latest).toMatchObject({ rows: 50, features: [{ feature: 'score', kind: 'score', test: 'ks', rows: 50, warnings: [] }] });
    expect(calm).toMatchObject({ warning: false, warned_features: [] });
    // shifted: a camera fault, frames of noise in place of the parts (the window then holds only those)
    const frames = await Promise.all(
      okFiles.map(async (f) => {
        const { width = 64, height = 64 } = await sharp(f).metadata();
        return sharp({ create: { width, height, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 80 } } }).png().toBuffer();
      }),
    );
    const shifted = await serveAll(frames);
    expect(Math.min(...shifted)).toBeGreaterThan(Math.max(...reference));
    const v = await finished();
    expect(v).toMatchObject({ warning: true, warned_features: ['score'] });
    const score = v.latest.features[0];
    expect(score.warnings).toContain('shift');
    expect(score.psi).toBeGreaterThan(0.2);
    expect(score.p_value).toBeLessThan(0.01);
    expect(score.outside).toBe(1);
    expect(v.history.map((h: { psi: Record<string, number> }) => Object.keys(h.psi))).toEqual([['score'], ['score']]);
  }, 600_000);

  it('documents the image request and answer in the OpenAPI document', async () => {
    const docs = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    const op = docs.paths['/serve/{key}/predict'].post;
    expect(Object.keys(op.requestBody.content).sort()).toEqual(['application/json', 'multipart/form-data', 'text/csv']);
    expect(op.requestBody.content['multipart/form-data'].schema.properties.image).toMatchObject({ format: 'binary' });
    expect(op.description).toContain('-F image=@part.png');
    expect(JSON.stringify(op.responses['200'])).toContain('HostedImagePrediction');
    expect(docs.components.schemas.HostedImagePrediction.properties.detail).toBeTruthy();
    expect(JSON.stringify(op.responses['422'])).toContain('image_format_unsupported');
    expect(op.parameters.map((p: { name: string }) => p.name)).toContain('heatmap');
  });
});
