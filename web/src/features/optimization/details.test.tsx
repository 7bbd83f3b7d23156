import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import i18n from '../../i18n';
import { ME, STATUS, mockFetch, ok, renderApp, signIn, warmUp } from '../../test/utils';
import type { Project } from './api';

warmUp(() => import('./index'));

afterEach(() => {
  vi.unstubAllGlobals();
  setSession(null);
  void i18n.changeLanguage('en');
});

const project: Project = {
  id: 'o1', project_id: 'o1', name: 'Strong and cheap', comment: 'Line 2 mix', dataset_id: 'ds1', dataset_name: 'Concrete', state: 'done',
  models: [{ project_id: 'p1', model_key: '1_lightgbm', project_name: 'Concrete', algorithm: 'lightgbm', target: 'strength' }],
  targets: [{ name: 'strength', goal: 'maximize', weight: 1 }],
  features: [
    { name: 'cement', kind: 'range', lower: 100, upper: 500, unit: 'kg/m³', weight: 1 },
    { name: 'age_days', kind: 'discrete', values: [7, 28], unit: 'd', weight: 1 },
  ],
  constraints: [], algorithms: ['tpe'], n_trials: 10, seed: 0, forbid_extrapolation: false,
  runs: [{ id: 'r1', algorithm: 'tpe', job_id: 'j1', state: 'done', progress: 1, message: '', error: null, best: null, evaluations: 10, seconds: 0.8, created_at: '2025-05-20T02:00:00Z', finished_at: '2025-05-20T02:00:01Z' }],
  created_at: '2025-05-20T02:00:00Z', updated_at: '2025-05-20T02:00:00Z',
};

function serve() {
  let current = project;
  return mockFetch({
    'GET /api/users/me': () => ok(ME),
    'GET /api/services/status': () => ok(STATUS),
    'GET /api/optimization/project/o1': () => ok(current),
    'PUT /api/optimization/project/o1': (c) => ok((current = { ...current, name: (c.body as { name: string }).name })),
    'DELETE /api/optimization/project/delete/o1': () => ok({ id: 'o1' }),
    'GET /api/optimization/projects/list': () => ok({ items: [], total: 0, counts: { all: 0, ready: 0, running: 0, done: 0, failed: 0 } }),
  });
}

describe('optimisation project page (issue 33: the frame of every project page)', () => {
  it('shows name, type · state · facts, Run again, Rename and Delete, and one features table head', async () => {
    signIn();
    serve();
    renderApp('/optimization/regress/details/o1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Strong and cheap' })).toBeInTheDocument();
    const facts = screen.getByTestId('project-facts');
    expect(facts).toHaveTextContent('Optimization');
    expect(facts).toHaveTextContent('Concrete · 1 algorithm');
    expect(within(facts).getByText('Done')).toBeInTheDocument();
    const buttons = screen.getAllByRole('button').map((b) => b.textContent);
    expect(buttons.indexOf('Run again')).toBeGreaterThan(-1);
    expect(buttons.indexOf('Run again')).toBeLessThan(buttons.indexOf('Rename'));
    expect(buttons.indexOf('Rename')).toBeLessThan(buttons.indexOf('Delete project'));
    const features = screen.getByRole('table', { name: 'Features' });
    expect(within(features).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Feature', 'Kind', 'Setting', 'Unit']);
    expect(screen.getByText('Comment')).toBeInTheDocument();
    expect(screen.getByText('Line 2 mix')).toBeInTheDocument();
  });

  it('renames in place and deletes back to the list', async () => {
    signIn();
    const calls = serve();
    const user = userEvent.setup();
    const { router } = renderApp('/optimization/regress/details/o1');
    await user.click(await screen.findByRole('button', { name: 'Rename' }));
    const field = screen.getByRole('textbox', { name: 'Project name' });
    await user.clear(field);
    await user.type(field, 'Cheapest strong mix');
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Rename' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Cheapest strong mix' })).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ name: 'Cheapest strong mix' });
    await user.click(screen.getByRole('button', { name: 'Delete project' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete project' }));
    expect(await screen.findByText('Project deleted.')).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/optimization/project/delete/o1')).toBe(true);
    expect(router.state.location.pathname).toBe('/optimization');
  });

  it('speaks Japanese in the same frame', async () => {
    await i18n.changeLanguage('ja');
    signIn();
    serve();
    renderApp('/optimization/regress/details/o1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Strong and cheap' })).toBeInTheDocument();
    expect(screen.getByTestId('project-facts')).toHaveTextContent('Concrete · アルゴリズム 1 件');
    expect(screen.getByRole('button', { name: '名前を変更' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'プロジェクトを削除' })).toBeInTheDocument();
  });
});
