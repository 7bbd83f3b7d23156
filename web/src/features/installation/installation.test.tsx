import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import i18n from '../../i18n';
import { json, ME, mockFetch, ok, renderApp, signIn, STATUS } from '../../test/utils';
import type { PlatformProject } from '../platform/api';
import type { InstallationSettings } from './api';

afterEach(async () => {
  vi.unstubAllGlobals();
  setSession(null);
  await i18n.changeLanguage('en');
});

const PROFILE = {
  id: 'u1', email: ME.email, role: 'owner', status: 'active', created_at: '2026-01-01T00:00:00Z', has_password: true,
  values: { first_name: 'Hanako', last_name: 'Yamada', organisation_name: 'Acme Chemicals' }, registration_complete: true, missing: [],
  settings: { language: 'en-gb', currency: 'JPY', dark_theme: false, clock_24h: true, tz_offset_minutes: 540 },
  identity: { state: 'under_review', reason: null, submitted_at: '2026-11-01T00:00:00Z', reviewed_at: null },
  platform_admin: true, platform_admin_reason: 'first_account',
};
const FRESH: InstallationSettings = { bank_account: null, bank_account_source: null, platform_review: true, platform_review_source: 'environment', administrators: { environment: [], first_account: ME.email } };
const BANK = { bank_name: 'Mitate Bank', bank_code: '0999', branch_name: 'Head Office', branch_code: '001', account_type: 'organisation' as const, account_number: '1234567', account_holder: 'Mitate K.K.' };

function routes(profile: object, extra: Parameters<typeof mockFetch>[0] = {}) {
  return mockFetch({
    'GET /api/users/me': () => ok(ME),
    'GET /api/services/status': () => ok(STATUS),
    'GET /account/api/profile': () => ok(profile),
    'GET /api/installation/settings': () => ok(FRESH),
    ...(extra as object),
  });
}

// generous limits: the first render loads the shell and the area, slow on a busy machine
describe('platform settings (/admin/settings)', { timeout: 300_000 }, () => {
  it('tells the first account it is the administrator; saves the bank account with field errors from the server', async () => {
    signIn();
    let saved: InstallationSettings = FRESH;
    const calls = routes(PROFILE, {
      'PUT /api/installation/settings': (c) => {
        const b = c.body as { bank_account: typeof BANK };
        if (b.bank_account.bank_code !== '0999') return json({ detail: [{ loc: ['body', 'bank_code'], msg: 'The bank code is 4 digits.', type: 'value_error' }] }, 422);
        saved = { ...FRESH, bank_account: b.bank_account, bank_account_source: 'settings' };
        return ok(saved);
      },
    });
    renderApp('/admin/settings');
    expect(await screen.findByTestId('first-account-admin', {}, { timeout: 60_000 })).toHaveTextContent(/first account/);
    expect(screen.getByText(/No bank account is set/)).toBeInTheDocument();
    const user = userEvent.setup();
    const fill = async (label: RegExp, v: string) => {
      const box = screen.getByRole('textbox', { name: label });
      await user.clear(box);
      await user.type(box, v);
    };
    await fill(/^Bank name/, BANK.bank_name);
    await fill(/^Bank code/, '99');
    await fill(/^Branch name/, BANK.branch_name);
    await fill(/^Branch code/, BANK.branch_code);
    await fill(/^Account number/, BANK.account_number);
    await fill(/^Account holder/, BANK.account_holder);
    await user.click(screen.getByRole('button', { name: 'Save bank account' }));
    expect(await screen.findByText('The bank code is 4 digits.')).toBeInTheDocument();
    await fill(/^Bank code/, '0999');
    await user.click(screen.getByRole('button', { name: 'Save bank account' }));
    await waitFor(() => expect(screen.queryByText(/No bank account is set/)).not.toBeInTheDocument());
    expect(screen.getByText('Saved here')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'PUT').at(-1)?.body).toEqual({ bank_account: BANK });
  });

  it('switches the hosted-API review off and says what submitting then does (Japanese)', async () => {
    await i18n.changeLanguage('ja');
    signIn();
    const calls = routes(PROFILE, { 'PUT /api/installation/settings': () => ok({ ...FRESH, platform_review: false, platform_review_source: 'settings' }) });
    renderApp('/admin/settings');
    const sw = await screen.findByRole('switch', { name: 'ホスティングAPIはプラットフォーム管理者の審査を待つ' }, { timeout: 60_000 });
    expect(sw).toBeChecked();
    await userEvent.setup().click(sw);
    await waitFor(() => expect(screen.getByTestId('review-effect')).toHaveTextContent('即時に承認'));
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ platform_review: false });
  });

  it('refuses a person who is not a platform administrator', async () => {
    signIn();
    const calls = routes({ ...PROFILE, platform_admin: false, platform_admin_reason: null });
    renderApp('/admin/settings');
    expect(await screen.findByText('Only platform administrators can change the platform settings.', {}, { timeout: 60_000 })).toBeInTheDocument();
    expect(calls.some((c) => c.path === '/api/installation/settings')).toBe(false);
  });

  it('the profile says the first account is the administrator; its ID under review links to the review', async () => {
    signIn();
    routes(PROFILE);
    renderApp('/profile?tab=identity');
    expect(await screen.findByTestId('first-admin-notice', {}, { timeout: 60_000 })).toHaveTextContent(/platform administrator/);
    const alert = (await screen.findByText(/your own included/)).closest('[role="alert"]') as HTMLElement;
    expect(within(alert).getByRole('link', { name: 'Identity review' })).toHaveAttribute('href', '/admin/identity');
  });

  it('a hosted API: with the review off, "Submit" says it approves at once; under review, an administrator is sent to the review', async () => {
    signIn();
    const draft: PlatformProject = {
      id: 'pp1', name: 'Power API', key: 'power', status: 'draft', actions: ['submit'], reason: null,
      model: { project_id: 'p1', project_name: 'Power', model_key: '1_lightgbm', type: 'regression' },
      settings: { content_language: 'en-gb', industry: '', use_case: '', language: '', version: '1.0', documentation_url: '', tutorial_url: '', source_code_url: '', sandbox_url: '', cover_image_url: '',
        cpu_cores: 1, memory_gb: 1, gpu_gb: 0, expected_requests_per_month: 0, expected_rps: 0, expected_unique_users: 0, expected_item_count: 0, subscription_type: 'standard', billing_cycle: 'monthly',
        auto_scaling: false, cloud_provider: 'mitate', region: 'ap-northeast-1' },
      currency: 'JPY', subscription_price: 9800, infrastructure_price: 6100, endpoint: 'http://localhost/serve/power/predict', features: ['AT'], outputs: ['predicted_EP'],
      created_at: '2026-11-23T01:00:00Z', updated_at: '2026-11-23T01:00:00Z', reviewed_at: null, image: null,
    };
    let current = draft;
    let reviewRequired = false;
    mockFetch({
      'GET /api/users/me': () => ok({ ...ME, role: 'owner' }),
      'GET /api/services/status': () => ok(STATUS),
      'GET /api/platform/admin/me': () => ok({ platform_admin: true, first_account: true, review_required: reviewRequired }),
      'GET /api/platform/projects/pp1': () => ok(current),
      'GET /api/platform/projects/pp1/credentials': () => ok([]),
      'GET /api/platform/projects/pp1/statistics': () => ok({ total: 0, refused: 0, refusals: { key: 0, locked: 0, input: 0, rate_limit: 0, server: 0 }, average_ms: null, paths: [], devices: [], browsers: [], os: [], series: [], bucket: 'hour' }),
    });
    const view = renderApp('/platform/details/pp1');
    expect(await screen.findByText(/approves it at once/, {}, { timeout: 60_000 })).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText(/approves submitted APIs at once/)).toBeInTheDocument();
    view.unmount();
    reviewRequired = true;
    current = { ...draft, status: 'under_review', actions: ['draft'] };
    renderApp('/platform/details/pp1');
    const alert = (await screen.findByText(/You are a platform administrator/, {}, { timeout: 60_000 })).closest('[role="alert"]') as HTMLElement;
    expect(within(alert).getByRole('link', { name: 'Review' })).toHaveAttribute('href', '/admin/platform');
  });
});
