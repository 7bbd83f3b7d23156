import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, multipart, registerAndLogin, type TestApp } from './helpers.js';

/** Issue 15: a request refused by its schema is answered in the caller's language, on every route, by one handler. */
describe('request schema refusals in the caller’s language', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  beforeAll(async () => {
    t = await makeTestApp('sqlite', { startJobs: false });
    auth = (await registerAndLogin(t.app)).auth;
  });
  afterAll(() => t.close());

  const NON_ASCII = /[^\t\n\r\x20-\x7e]/; // any letter outside printable ASCII: kana, kanji, full-width signs
  type Call = { method: 'POST' | 'GET'; url: string; payload?: unknown; headers?: Record<string, string> };
  const calls = (): Record<string, Call> => {
    const form = multipart({ name: '', data_type: 'training_data', type: 'supervised', training_type: 'regression' }, { name: 'a.csv', content: 'x,y\n1,2\n' });
    return {
      // zod's own words: a number where a string belongs, a union no branch matches, a number too large
      login: { method: 'POST', url: '/account/api/auth/login', payload: { email: 5, password: 'x' } },
      training: { method: 'POST', url: '/api/project/register/nosuch', payload: { name: 7 }, headers: auth },
      timeseries: { method: 'POST', url: '/api/timeseries/register/nosuch', payload: { name: 'ts', split_ratio: 3 }, headers: auth },
      // a schema's own catalogue message: the required fields of sign-up, the name of a dataset (a multipart form read by hand)
      register: { method: 'POST', url: '/account/api/auth/register', payload: { email: ' ', password: '', first_name: '', last_name: '', organisation_name: 'x' } },
      dataset: { method: 'POST', url: '/api/dataset/register', payload: form.payload, headers: { ...form.headers, ...auth } },
    };
  };
  const refuse = async (c: Call, lang: string) => {
    const r = await t.app.inject({ method: c.method, url: c.url, payload: c.payload as string, headers: { ...(c.headers ?? {}), 'accept-language': lang } });
    expect(r.statusCode, `${c.url}: ${r.body}`).toBe(422);
    const detail = r.json().detail as { loc: string[]; msg: string }[];
    expect(detail.length).toBeGreaterThan(0);
    return detail;
  };

  it('says every refusal in Japanese to a Japanese caller and in English to an English one', async () => {
    for (const [area, c] of Object.entries(calls())) {
      const ja = await refuse(c, 'ja,en;q=0.5');
      for (const d of ja) expect(d.msg, `${area} ${d.loc.join('.')}`).toMatch(NON_ASCII);
    }
    for (const [area, c] of Object.entries(calls())) {
      const en = await refuse(c, 'en-GB,en;q=0.9');
      for (const d of en) expect(d.msg, `${area} ${d.loc.join('.')}`).toMatch(/^[\x20-\x7e]+$/);
    }
  });

  it('gives the same places in both languages, with catalogue texts where the schema has one', async () => {
    const c = calls();
    const ja = await refuse(c.register, 'ja');
    const en = await refuse(c.register, 'en');
    expect(ja.map((d) => d.loc)).toEqual(en.map((d) => d.loc));
    expect(ja.find((d) => d.loc.join('.') === 'body.password')?.msg).toBe('この項目は必須です。');
    expect(en.find((d) => d.loc.join('.') === 'body.password')?.msg).toBe('This field is required.');
    const name = await refuse(calls().dataset, 'ja');
    expect(name).toEqual([{ loc: ['body', 'name'], msg: '名前を入力してください。', type: 'value_error' }]);
    const big = await refuse(c.timeseries, 'ja');
    expect(big.find((d) => d.loc.join('.') === 'body.split_ratio')?.msg).toMatch(/大きすぎる/);
    // no language asked for: English
    const plain = await t.app.inject({ method: 'POST', url: '/account/api/auth/login', payload: { email: 5, password: 'x' } });
    expect(plain.json().detail[0].msg).toMatch(/^Invalid input/);
  });
});
