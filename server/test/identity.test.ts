import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, makeTestApp, registerAndLogin, STRONG_PASSWORD, type TestApp } from './helpers.js';

function form(files: { field: string; name: string; type: string; content: Buffer }[]) {
  const boundary = `----id${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const f of files) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${f.field}"; filename="${f.name}"\r\nContent-Type: ${f.type}\r\n\r\n`), f.content, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe.each(DATABASES)('identity verification on %s', (kind) => {
  let t: TestApp;
  let user: Awaited<ReturnType<typeof registerAndLogin>>;
  let admin: Record<string, string>;
  let jpeg: Buffer;
  let png: Buffer;
  const saved = { ...process.env };
  beforeAll(async () => {
    process.env.MITATE_ID_MAX_MB = '1';
    process.env.MITATE_PLATFORM_ADMINS = 'Reviewer@Platform.example, other@platform.example';
    t = await makeTestApp(kind, { startJobs: false });
    user = await registerAndLogin(t.app, 'idcheck', 'Acme');
    await t.app.inject({ method: 'POST', url: '/account/api/auth/register', payload: { email: 'reviewer@platform.example', password: STRONG_PASSWORD, first_name: 'Rev', last_name: 'Iewer', organisation_name: 'Platform' } });
    const login = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: 'reviewer@platform.example', password: STRONG_PASSWORD } });
    admin = { authorization: `Bearer ${login.json().detail.response.access_token}` };
    // a photo with camera and GPS metadata
    jpeg = await sharp({ create: { width: 640, height: 400, channels: 3, background: { r: 200, g: 180, b: 150 } } })
      .jpeg()
      .withExif({ IFD0: { Make: 'SecretCam', Model: 'X1' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '35/1 39/1 0/1' } })
      .toBuffer();
    png = await sharp({ create: { width: 300, height: 200, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 1 } } }).png().toBuffer();
  });
  afterAll(async () => {
    process.env = saved;
    await t.close();
  });

  it('walks not done → under review → rejected with a reason → under review → done; payment waits for it', async () => {
    const get = (url: string, auth: Record<string, string> = user.auth) => t.app.inject({ method: 'GET', url: `/account/api${url}`, headers: auth });
    const send = (files: Parameters<typeof form>[0], auth: Record<string, string> = user.auth) => {
      const f = form(files);
      return t.app.inject({ method: 'POST', url: '/account/api/identity', headers: { ...auth, ...f.headers }, payload: f.payload });
    };
    expect((await get('/identity')).json().detail.response.state).toBe('not_done');
    expect((await get('/identity/payment-check')).json().detail.response).toEqual({ allowed: false, state: 'not_done', message: 'Please verify your identity before paying.' });

    // bad input changes nothing
    const text = await send([{ field: 'front', name: 'id.jpg', type: 'image/jpeg', content: Buffer.from('not a picture at all') }, { field: 'back', name: 'b.png', type: 'image/png', content: png }]);
    expect(text.statusCode).toBe(422);
    expect(text.json().detail[0].msg).toBe('The ID image must be a JPEG or PNG picture.');
    const gif = await send([{ field: 'front', name: 'a.gif', type: 'image/gif', content: await sharp({ create: { width: 10, height: 10, channels: 3, background: 'red' } }).gif().toBuffer() }, { field: 'back', name: 'b.png', type: 'image/png', content: png }]);
    expect(gif.statusCode).toBe(422);
    const one = await send([{ field: 'front', name: 'a.jpg', type: 'image/jpeg', content: jpeg }]);
    expect(one.statusCode).toBe(422);
    expect(one.json().detail[0]).toMatchObject({ loc: ['body', 'back'], msg: 'Please choose both ID images (front and back).' });
    const big = await send([{ field: 'front', name: 'a.jpg', type: 'image/jpeg', content: Buffer.concat([jpeg, Buffer.alloc(1_200_000)]) }, { field: 'back', name: 'b.png', type: 'image/png', content: png }]);
    expect(big.statusCode).toBe(413);
    expect(big.json().detail.response).toBe('File size must be less than 1 MB.');
    expect((await get('/identity')).json().detail.response.state).toBe('not_done');

    const ok = await send([{ field: 'front', name: 'front.jpg', type: 'image/jpeg', content: jpeg }, { field: 'back', name: 'back.png', type: 'image/png', content: png }]);
    expect(ok.statusCode).toBe(201);
    expect(ok.json().detail.response.state).toBe('under_review');
    expect((await get('/identity/payment-check', { ...user.auth, 'accept-language': 'ja' })).json().detail.response.message).toBe('本人確認書類を審査中です');
    expect((await get('/identity/payment-check')).json().detail.response.message).toBe('ID under review');
    const row = await t.app.ctx.db.selectFrom('identity_verifications').selectAll().executeTakeFirstOrThrow();
    const stored = path.join(t.dataDir, 'files', row.front_key);
    const meta = await sharp(fs.readFileSync(stored)).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.format).toBe('jpeg');
    expect(fs.readFileSync(stored).includes(Buffer.from('SecretCam'))).toBe(false);
    expect(row.front_key.startsWith('private/')).toBe(true);
    // not reachable through the organisation's file download
    const dl = await t.app.inject({ method: 'POST', url: '/api/download/file', headers: user.auth, payload: { paths: [`../../${row.front_key}`] } });
    expect([400, 404]).toContain(dl.statusCode);
    const both = [{ field: 'front', name: 'a.jpg', type: 'image/jpeg', content: jpeg }, { field: 'back', name: 'b.png', type: 'image/png', content: png }];
    expect((await send(both)).statusCode).toBe(409);

    // the platform administrator's review page; nobody else may see it
    expect((await get('/admin/identity')).statusCode).toBe(403);
    expect((await get(`/admin/identity/${row.id}/front`)).statusCode).toBe(403);
    const list = (await get('/admin/identity', admin)).json().detail.response.items;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: row.id, state: 'under_review', email: user.email, organisation_name: 'Acme' });
    const img = await get(`/admin/identity/${row.id}/back`, admin);
    expect(img.headers['content-type']).toBe('image/png');
    const review = (body: object) => t.app.inject({ method: 'POST', url: `/account/api/admin/identity/${row.id}/review`, headers: admin, payload: body });
    expect((await t.app.inject({ method: 'POST', url: `/account/api/admin/identity/${row.id}/review`, headers: user.auth, payload: { decision: 'approve' } })).statusCode).toBe(403);
    expect((await review({ decision: 'reject' })).statusCode).toBe(422);
    expect((await review({ decision: 'reject', reason: 'The back image is blurred.' })).statusCode).toBe(200);
    expect((await review({ decision: 'approve' })).statusCode).toBe(409);
    expect((await get('/identity')).json().detail.response).toMatchObject({ state: 'rejected', reason: 'The back image is blurred.' });
    expect((await get('/identity/payment-check')).json().detail.response.allowed).toBe(false);

    // upload again, approved this time
    expect((await send(both)).statusCode).toBe(201);
    const second = (await get('/admin/identity', admin)).json().detail.response.items[0];
    expect((await t.app.inject({ method: 'POST', url: `/account/api/admin/identity/${second.id}/review`, headers: admin, payload: { decision: 'approve' } })).statusCode).toBe(200);
    expect((await get('/identity/payment-check')).json().detail.response).toEqual({ allowed: true, state: 'done', message: null });
    expect((await get('/profile')).json().detail.response.identity.state).toBe('done');
    expect((await send(both)).statusCode).toBe(409);
    // the reviewed person was told by mail
    const mails = fs.readdirSync(path.join(t.dataDir, 'outbox')).map((f) => fs.readFileSync(path.join(t.dataDir, 'outbox', f), 'utf8'));
    expect(mails.some((m) => m.includes(`To: ${user.email}`) && m.includes('identity is verified'))).toBe(true);
  });
});
