import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setSession } from '../../api/session';
import { ME, STATUS, mockFetch, ok, renderApp, signIn, warmUp } from '../../test/utils';
import type { Project } from './api';

warmUp(() => import('./index'));

vi.mock('../../charts/EChart', () => ({ default: ({ ariaLabel }: { ariaLabel?: string }) => <div role="img" aria-label={ariaLabel} /> }));

afterEach(() => {
  vi.unstubAllGlobals();
  setSession(null);
});

const common = { 'GET /api/users/me': () => ok(ME), 'GET /api/services/status': () => ok(STATUS) };
const variables = ['A', 'B', 'C'].map((name) => ({ name, type: 'mixture' as const, low: 0, high: 1, levels: [] }));
const criteria = {
  runs: 6, terms: 6, det_xtx: 1e-6, singular: false, d_efficiency: 0.0123, a_efficiency: 0.001, d_relative: 0.98, a_relative: 0.95, g_efficiency: 1, i_value: 0.4, i_efficiency: 0.9, max_variance: 1.2,
  vif: { A: 1.5, 'A*B': 2 }, variance_profile: { fraction: [0, 1], scaled_variance: [1, 6], points: 4000 },
};
const project: Project = {
  id: 'p1', name: 'Blend', comment: '', state: 'done', rounds: 1,
  settings: { variables, constraints: [], responses: ['gloss'], model: { kind: 'scheffe_quadratic' }, mixture_total: 1, exclude_tolerance: 0, existing_project_ids: [], exclude_count: 0, existing_rows: [] },
  round_list: [{
    round: 1, algorithm: 'simplex_lattice', n_runs: 6, parameters: { seed: 0, starts: 10, parameters: {}, bo: null }, state: 'done', job_id: 'j1', error: null, results: null, created_at: '2025-05-20T02:00:00Z', finished_at: null,
    result: {
      algorithm: 'simplex_lattice', method: 'simplex_lattice', model: { kind: 'scheffe_quadratic', terms: ['A', 'B', 'C', 'A*B', 'A*C', 'B*C'] }, variables, mixture_total: 1,
      existing: [], runs: [{ A: 1, B: 0, C: 0 }, { A: 0, B: 1, C: 0 }, { A: 0, B: 0, C: 1 }, { A: 0.5, B: 0.5, C: 0 }, { A: 0.5, B: 0, C: 0.5 }, { A: 0, B: 0.5, C: 0.5 }],
      criteria, min_distance: 0.5, candidates: 20, region_points: 4000, excluded: 0, fits: {}, seed: 0,
    },
  }],
  eval_state: null, eval_error: null, created_at: '2025-05-20T02:00:00Z', updated_at: '2025-05-20T02:00:00Z',
};

describe('optimal design pages', () => {
  it('lists projects and shows a round: design table, efficiencies, VIFs and the ternary plot', async () => {
    signIn();
    mockFetch({
      ...common,
      'GET /api/optimal/projects': () => ok({ items: [{ id: 'p1', name: 'Blend', state: 'done', rounds: 1, variables: 3, created_at: project.created_at, updated_at: project.updated_at }], total: 1 }),
      'GET /api/optimal/project/p1': () => ok(project),
      'GET /api/project/list/': () => ok({ items: [], total: 0 }),
    });
    renderApp('/optimal-design');
    const link = await screen.findByRole('link', { name: 'Blend' });
    expect(link).toHaveAttribute('href', '/optimal-design/details/p1');
    await userEvent.click(link);
    const table = await screen.findByRole('table', { name: 'Design' });
    expect(within(table).getAllByRole('row')).toHaveLength(7);
    const quality = screen.getByRole('table', { name: 'Design quality' });
    // relative D leads; the absolute D (on the coded cube's scale) is labelled as such (issue 33)
    const row = (name: RegExp) => within(quality).getByText(name).closest('tr')!;
    expect(within(row(/^D-efficiency \(vs best design found\)$/)).getByText('98.00%')).toBeInTheDocument();
    expect(within(row(/^D \(absolute, coded cube\)$/)).getByText('1.23%')).toBeInTheDocument();
    expect(within(quality).getByText('90.00%')).toBeInTheDocument();
    expect(within(screen.getByRole('table', { name: 'Variance inflation factors' })).getByText('A*B')).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Ternary plot' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Propose next runs' })).toBeEnabled();
    // how the runs were chosen, by its name, never the engine's identifier (issue 33)
    expect(screen.getByText(/Method: Simplex lattice/)).toBeInTheDocument();
    expect(screen.queryByText(/simplex_lattice/)).toBeNull();
  });

  it('frames the project page as every project page (issue 33): type · state · facts, downloads, Rename, Delete', async () => {
    signIn();
    let current = project;
    const calls = mockFetch({
      ...common,
      'GET /api/optimal/project/p1': () => ok(current),
      'PUT /api/optimal/project/p1': (c) => ok((current = { ...current, name: (c.body as { name: string }).name })),
      'DELETE /api/optimal/project/delete/p1': () => ok({ id: 'p1' }),
      'GET /api/optimal/projects': () => ok({ items: [], total: 0 }),
      'GET /api/project/list/': () => ok({ items: [], total: 0 }),
    });
    const user = userEvent.setup();
    const { router } = renderApp('/optimal-design/details/p1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Blend' })).toBeInTheDocument();
    const facts = screen.getByTestId('project-facts');
    expect(facts).toHaveTextContent('Design of Experiments');
    expect(facts).toHaveTextContent('Rounds 1 · Variables 3');
    const buttons = screen.getAllByRole('button').map((b) => b.textContent);
    expect(buttons.indexOf('Download design (CSV)')).toBeGreaterThan(-1);
    expect(buttons.indexOf('Download design (CSV)')).toBeLessThan(buttons.indexOf('Rename'));
    expect(buttons.indexOf('Rename')).toBeLessThan(buttons.indexOf('Delete project'));
    await user.click(screen.getByRole('button', { name: 'Rename' }));
    const field = screen.getByRole('textbox', { name: 'Project name' });
    await user.clear(field);
    await user.type(field, 'Blend B');
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Rename' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Blend B' })).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ name: 'Blend B' });
    await user.click(screen.getByRole('button', { name: 'Delete project' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete project' }));
    expect(await screen.findByText('Project deleted.')).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/optimal/project/delete/p1')).toBe(true);
    expect(router.state.location.pathname).toBe('/optimal-design');
  });
});
