import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, makeTestApp, registerAndLogin, type TestApp, tiles, upload, zipOf } from './helpers.js';

/** Issue 33: the jobs an upload starts (a table's statistics, a ZIP's unpacking) say their progress in the uploader's language. */
describe.each(DATABASES)('jobs started by an upload, in the uploader language, on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  beforeAll(async () => {
    t = await makeTestApp(kind);
    alice = await registerAndLogin(t.app, 'uplang');
  });
  afterAll(() => t.close());

  const jobsOf = (kindName: string) => t.app.ctx.db.selectFrom('jobs').select(['id', 'spec_json', 'message', 'state']).where('kind', '=', kindName).orderBy('created_at', 'asc').execute();
  const csv = 'x,y\n1,2\n2,4\n3,6\n4,8\n';

  it('a CSV uploaded in Japanese gets its statistics said in Japanese; in English without a Japanese header', async () => {
    const ja = await upload(t.app, alice.auth, { name: 'ja.csv', content: csv }, {}, { 'accept-language': 'ja-JP,ja;q=0.9' });
    expect(ja.statusCode).toBe(201);
    const en = await upload(t.app, alice.auth, { name: 'en.csv', content: csv });
    expect(en.statusCode).toBe(201);
    const [jaJob, enJob] = await jobsOf('statistics');
    expect(JSON.parse(jaJob.spec_json).lang).toBe('ja');
    expect(JSON.parse(enJob.spec_json).lang).toBe('en');
    for (const j of [jaJob, enJob]) expect((await t.app.ctx.jobs.waitFor(j.id, 600_000)).state).toBe('succeeded');
    const [jaDone, enDone] = await jobsOf('statistics');
    expect(jaDone.message).toBe('統計量を書き出しています');
    expect(enDone.message).toBe('Writing statistics');
  });

  it('statistics asked for again take the language of the person asking', async () => {
    const id = (await upload(t.app, alice.auth, { name: 'again.csv', content: csv })).json().detail.response.id;
    const first = (await jobsOf('statistics')).at(-1)!;
    await t.app.ctx.jobs.waitFor(first.id, 600_000);
    const again = await t.app.inject({ method: 'POST', url: `/api/statistics/${id}`, headers: { ...alice.auth, 'accept-language': 'ja' } });
    const jobId = again.json().detail.response.job_id;
    await t.app.ctx.jobs.waitFor(jobId, 600_000);
    const row = (await jobsOf('statistics')).find((j) => j.id === jobId)!;
    expect(JSON.parse(row.spec_json).lang).toBe('ja');
    expect(row.message).toBe('統計量を書き出しています');
  });

  it('a ZIP of images uploaded in Japanese is unpacked with Japanese progress', async () => {
    const zip = await zipOf([...tiles('OK', 20), ...tiles('NG', 20)]);
    const res = await upload(t.app, alice.auth, { name: 'tiles.zip', content: zip }, { training_type: 'analysis' }, { 'accept-language': 'ja' });
    expect(res.statusCode).toBe(201);
    const [ingest] = await jobsOf('image_ingest');
    expect(ingest.state).toBe('succeeded');
    expect(JSON.parse(ingest.spec_json).lang).toBe('ja');
    expect(ingest.message).toBe('画像を展開しています');
  });
});
