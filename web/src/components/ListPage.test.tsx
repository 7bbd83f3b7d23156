import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import '../i18n';
import ListPage from './ListPage';
import type { ListColumn } from './ListTable';
import { useListPage } from './useListPage';

interface Row {
  id: string;
  name: string;
}
const ROWS: Row[] = Array.from({ length: 45 }, (_, i) => ({ id: `r${i}`, name: `Item ${String(i).padStart(2, '0')}` }));
const COLUMNS: ListColumn<Row>[] = [{ field: 'name', headerName: 'Name', sortable: true }];
const SORTS = ['name_asc', 'name_desc'] as const;

/** A server-paged page as the feature pages write it: its columns, its endpoint (here a function of the params). */
function ServerPage({ calls, run }: { calls: unknown[]; run: (r: Row) => Promise<void> }) {
  const list = useListPage({ sorts: SORTS, defaultSort: 'name_asc' });
  const kind = list.filter('kind', ['even', 'odd'] as const);
  const params = { ...list.params, kind, sort: list.sort };
  calls.push(params);
  const found = ROWS.filter((r) => r.name.includes(params.query) && (!kind || Number(r.id.slice(1)) % 2 === (kind === 'even' ? 0 : 1)));
  const sorted = params.sort === 'name_desc' ? [...found].reverse() : found;
  const items = sorted.slice((params.page - 1) * params.page_size, params.page * params.page_size);
  return (
    <ListPage
      title="Things"
      list={list}
      searchLabel="Search things"
      filters={<button onClick={() => list.setFilter('kind', 'odd')}>Odd only</button>}
      result={{ data: { items, total: found.length }, isFetching: false }}
      columns={COLUMNS}
      rowKey={(r) => r.id}
      rowPath={(r) => `/things/${r.id}`}
      remove={{ label: 'Delete', confirm: (r) => ({ title: 'Delete the thing?', text: `${r.name} goes.`, run: () => run(r), done: 'Deleted.' }) }}
      empty="No things"
    />
  );
}

function show(page: React.ReactNode, path: string) {
  const router = createMemoryRouter([{ path: '/things', element: page }, { path: '/things/:id', element: <p>A thing</p> }], { initialEntries: [path] });
  render(<RouterProvider router={router} />);
  return router;
}
const names = () => screen.getAllByRole('row').slice(1).map((r) => within(r).getAllByRole('cell')[0].textContent);

describe('ListPage', () => {
  it('keeps page, size, search, order and filters in the URL and gives them to the endpoint', async () => {
    const calls: unknown[] = [];
    const router = show(<ServerPage calls={calls} run={async () => {}} />, '/things?page=2&page_size=10&sort=name_desc');
    expect(screen.getByRole('heading', { name: 'Things' })).toBeInTheDocument();
    expect(calls.at(-1)).toEqual({ query: '', page: 2, page_size: 10, kind: '', sort: 'name_desc' });
    expect(names()[0]).toBe('Item 34');
    await userEvent.click(screen.getByRole('button', { name: 'Name' })); // descending → the default order, from the first page
    await waitFor(() => expect(router.state.location.search).toBe('?page_size=10&sort=name_asc'));
    await userEvent.click(screen.getByRole('button', { name: 'Go to next page' }));
    await userEvent.click(screen.getByRole('button', { name: 'Odd only' }));
    await waitFor(() => expect(router.state.location.search).toBe('?page_size=10&sort=name_asc&kind=odd')); // back to the first page
    await userEvent.type(screen.getByRole('textbox', { name: 'Search things' }), 'Item 1');
    await waitFor(() => expect(calls.at(-1)).toEqual({ query: 'Item 1', page: 1, page_size: 10, kind: 'odd', sort: 'name_asc' }), { timeout: 5000 });
    expect(router.state.location.search).toContain('query=Item+1');
    expect(names()).toEqual(['Item 11', 'Item 13', 'Item 15', 'Item 17', 'Item 19']);
    await userEvent.type(screen.getByRole('textbox', { name: 'Search things' }), 'x');
    expect(await screen.findByText('No things', {}, { timeout: 5000 })).toBeInTheDocument();
  });

  it('opens a row and deletes it after asking', async () => {
    const run = vi.fn(async () => {});
    const router = show(<ServerPage calls={[]} run={run} />, '/things');
    const row = screen.getByRole('cell', { name: 'Item 00' }).closest('tr')!;
    await userEvent.click(within(row).getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete the thing?' });
    expect(run).not.toHaveBeenCalled();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(run).toHaveBeenCalledWith(ROWS[0]));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await userEvent.click(within(screen.getByRole('cell', { name: 'Item 01' }).closest('tr')!).getByRole('button', { name: 'Open' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/things/r1'));
  });

  it('pages a whole list in the browser and opens a row on a click anywhere in it', async () => {
    const router = show(
      <ListPage title="Things" result={{ data: { items: ROWS }, isFetching: false }} columns={COLUMNS} rowKey={(r) => r.id} rowPath={(r) => `/things/${r.id}`} openOnClick pageSizes={[10, 25]} empty="No things" />,
      '/things',
    );
    expect(names()).toHaveLength(25);
    expect(screen.queryByRole('button', { name: 'Open' })).toBeNull();
    await userEvent.click(screen.getByText('Item 03'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/things/r3'));
  });

  it('puts the New button last in the header: a link to its page, or a click that opens a dialog here', async () => {
    const create = vi.fn();
    const page = (to?: string) => (
      <ListPage
        title="Things"
        actions={<button>Export</button>}
        create={to ? { label: 'New thing', to } : { label: 'New thing', onClick: create }}
        result={{ data: { items: ROWS }, isFetching: false }}
        columns={COLUMNS}
        rowKey={(r) => r.id}
        empty="No things"
      />
    );
    const { unmount } = render(<RouterProvider router={createMemoryRouter([{ path: '/things', element: page() }], { initialEntries: ['/things'] })} />);
    expect(screen.getByRole('button', { name: 'Export' }).compareDocumentPosition(screen.getByRole('button', { name: 'New thing' }))).toBe(Node.DOCUMENT_POSITION_FOLLOWING);
    await userEvent.click(screen.getByRole('button', { name: 'New thing' }));
    expect(create).toHaveBeenCalledTimes(1);
    unmount();
    const router = show(page('/things/new'), '/things');
    await userEvent.click(screen.getByRole('link', { name: 'New thing' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/things/new'));
  });
});
