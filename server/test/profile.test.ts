import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupProblems, validBirthDate } from '../src/features/profile/rules.js';
import { DATABASES, makeTestApp, registerAndLogin, type TestApp } from './helpers.js';

const COMPLETE = {
  first_name: 'Hanako',
  middle_name: '',
  last_name: 'Yamada',
  birth_date: '1988-04-12',
  gender: 'female',
  phone: '+81 3-1234-5678',
  account_name: 'acme2024',
  currency: 'JPY',
  country_code: 'JP',
  state_or_province: 'Kanagawa',
  city: 'Kawasaki',
  postal_code: '210-0001',
  address: '1-2-3 Ekimae, Kawasaki-ku',
  organisation_name: 'Acme Chemicals',
  vat_number: 'T1234567890123',
  registration_number: '0100-01-123456',
  ceo: 'Ichiro Suzuki',
  organisation_email: 'info@acme.example',
  organisation_phone: '044-123-4567',
  website: 'https://acme.example',
  organisation_size: '50_149',
  industry: 'Chemicals',
};

/** SPEC §5: each rule with a failing and a passing value. */
const RULES: [string, string, string, RegExp][] = [
  ['account_name', 'acmeworks', 'acme2024', /letters and digits/],
  ['account_name', '123456', 'a1', /letters and digits/],
  ['account_name', '', 'acme7', /required/],
  ['first_name', '12345', 'Hanako', /digits only/],
  ['first_name', '  ', 'Hanako', /required/],
  ['last_name', '999', 'Yamada', /digits only/],
  ['city', '123', 'Kawasaki', /digits only/],
  ['address', '42', '42 Main Street', /digits only/],
  ['organisation_name', '2024', 'Acme 2024', /digits only/],
  ['ceo', '7', 'Ichiro Suzuki', /digits only/],
  ['birth_date', '1988-02-30', '1988-02-28', /date of birth/],
  ['birth_date', '2999-01-01', '1970-01-01', /date of birth/],
  ['birth_date', '12/04/1988', '1988-04-12', /date of birth/],
  ['phone', '12ab', '+81 90 1234 5678', /valid phone/],
  ['phone', '123', '03-1234-5678', /valid phone/],
  ['postal_code', '!!', '210-0001', /post code/],
  ['postal_code', '', 'SW1A 1AA', /required/],
  ['organisation_email', 'info@', 'info@acme.example', /organisation e-mail/],
  ['organisation_phone', 'call me', '+44 20 7946 0958', /organisation phone/],
  ['website', 'acme.example', 'https://acme.example', /valid URL/],
  ['website', 'ftp://acme.example', 'http://acme.example/about', /valid URL/],
  ['country_code', 'Japan', 'JP', /country/],
  ['organisation_size', '5000', '1000_plus', /size/],
  ['state_or_province', '', 'Tokyo', /required/],
  ['ceo', '', 'Jane Doe', /required/],
];

describe('SPEC §5 onboarding rules (pure)', () => {
  it.each(RULES)('%s: %j fails, %j passes', (field, bad, good, msg) => {
    const fail = setupProblems({ [field]: bad });
    expect(fail.map((p) => p.field)).toEqual([field]);
    expect(fail[0].message.en).toMatch(msg);
    expect(setupProblems({ [field]: good })).toEqual([]);
  });
  it('a date of birth must be a real date of someone aged 16 to 120', () => {
    const today = new Date('2026-06-01T00:00:00Z');
    expect(validBirthDate('2010-06-01', today)).toBe(true);
    expect(validBirthDate('2010-06-02', today)).toBe(false);
    expect(validBirthDate('1900-01-01', today)).toBe(false);
    expect(validBirthDate('2000-02-29', today)).toBe(true);
    expect(validBirthDate('2001-02-29', today)).toBe(false);
  });
});

describe.each(DATABASES)('complete registration, profile and settings on %s', (kind) => {
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof registerAndLogin>>;
  beforeAll(async () => {
    t = await makeTestApp(kind, { startJobs: false });
    owner = await registerAndLogin(t.app, 'owner', 'Acme');
  });
  afterAll(() => t.close());

  const setup = (auth: Record<string, string>, payload: object, lang = 'en') =>
    t.app.inject({ method: 'PUT', url: '/account/api/members/setup', headers: { ...auth, 'accept-language': lang }, payload });
  const profile = async (auth: Record<string, string>) => (await t.app.inject({ method: 'GET', url: '/account/api/profile', headers: auth })).json().detail.response;

  it('starts incomplete; completing needs every required field, each named, and nothing is saved until all pass', async () => {
    const p = await profile(owner.auth);
    expect(p.registration_complete).toBe(false);
    expect(p.identity.state).toBe('not_done');
    expect(p.settings).toMatchObject({ language: 'en-gb', currency: 'JPY', dark_theme: false, clock_24h: true, tz_offset_minutes: 540 });
    const missing = await setup(owner.auth, { complete: true, city: 'Kawasaki', website: 'nope' });
    expect(missing.statusCode).toBe(422);
    const fields = missing.json().detail.map((d: { loc: string[] }) => d.loc.at(-1));
    expect(fields).toEqual(expect.arrayContaining(['birth_date', 'phone', 'account_name', 'country_code', 'postal_code', 'address', 'ceo', 'organisation_email', 'organisation_phone', 'website', 'organisation_size']));
    expect(fields).not.toContain('city');
    expect((await profile(owner.auth)).values.city).toBeNull();
    const ja = await setup(owner.auth, { account_name: 'abc' }, 'ja');
    expect(ja.json().detail[0].msg).toBe('アカウント名には英字と数字の両方を含めてください。');
  });

  it('completes with valid values; the organisation gets its details', async () => {
    const res = await setup(owner.auth, { ...COMPLETE, complete: true });
    expect(res.statusCode).toBe(200);
    expect(res.json().detail.response.message).toBe('Account Updated Successfully');
    const p = await profile(owner.auth);
    expect(p.registration_complete).toBe(true);
    expect(p.values).toMatchObject({ city: 'Kawasaki', organisation_size: '50_149', website: 'https://acme.example', middle_name: null });
    const me = (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: owner.auth })).json().detail.response;
    expect(me.organisation.name).toBe('Acme Chemicals');
    const member = (await t.app.inject({ method: 'GET', url: `/account/api/members/${me.id}`, headers: owner.auth })).json().detail.response;
    expect(member).toMatchObject({ birth_date: '1988-04-12', gender: 'female', country_code: 'JP', postal_code: '210-0001', ip_address: '127.0.0.1' });
  });

  it('edits one tab at a time; a member may edit their profile but not the organisation', async () => {
    expect((await setup(owner.auth, { department: 'Process Engineering', office_location: 'Kawasaki plant' })).statusCode).toBe(200);
    const me = (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: owner.auth })).json().detail.response;
    expect(me).toMatchObject({ department: 'Process Engineering', office_location: 'Kawasaki plant' });
    // a member of the same organisation
    const inv = await t.app.inject({ method: 'POST', url: '/account/api/members', headers: owner.auth, payload: { email: 'mem@acme.example', role: 'member', first_name: 'Mem', last_name: 'Ber' } });
    expect(inv.statusCode).toBe(201);
    await t.app.ctx.db.updateTable('users').set({ status: 'active' }).where('email', '=', 'mem@acme.example').execute();
    const { signAccess } = await import('../src/auth/tokens.js');
    const sid = `s-${inv.json().detail.response.id}`;
    await t.app.ctx.db.insertInto('auth_sessions').values({ id: sid, user_id: inv.json().detail.response.id, created_at: new Date().toISOString(), ended_at: null }).execute();
    const token = signAccess(t.app.ctx.secret, { sub: inv.json().detail.response.id, sid, org: me.organisation.id, role: 'member', email: 'mem@acme.example' }, 600);
    const auth = { authorization: `Bearer ${token}` };
    expect((await setup(auth, { phone: '090-1111-2222' })).statusCode).toBe(200);
    expect((await setup(auth, { organisation_name: 'Hijacked' })).statusCode).toBe(403);
    const after = (await t.app.inject({ method: 'GET', url: '/api/users/me', headers: owner.auth })).json().detail.response;
    expect(after.organisation.name).toBe('Acme Chemicals');
  });

  it('saves settings and refuses bad ones', async () => {
    const put = (payload: object) => t.app.inject({ method: 'PUT', url: '/account/api/settings', headers: owner.auth, payload });
    const res = await put({ language: 'ja-jp', currency: 'USD', dark_theme: true, clock_24h: false, tz_offset_minutes: -300 });
    expect(res.statusCode).toBe(200);
    expect(res.json().detail.response).toMatchObject({ language: 'ja-jp', currency: 'USD', dark_theme: true, clock_24h: false, tz_offset_minutes: -300 });
    for (const bad of [{ language: 'fr-fr' }, { currency: 'XXX' }, { tz_offset_minutes: 1000 }, { tz_offset_minutes: 7 }, { dark_theme: 'yes' }, { unknown: 1 }]) {
      expect((await put(bad)).statusCode, JSON.stringify(bad)).toBe(422);
    }
    expect((await profile(owner.auth)).settings).toMatchObject({ language: 'ja-jp', currency: 'USD', tz_offset_minutes: -300 });
  });
});
