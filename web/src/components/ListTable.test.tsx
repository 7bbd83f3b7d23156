import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import '../i18n';
import ListTable, { type ListColumn } from './ListTable';

interface Row {
  id: string;
  name: string;
  size: number;
}
const ROWS: Row[] = Array.from({ length: 30 }, (_, i) => ({ id: `r${i}`, name: `Item ${String(i).padStart(2, '0')}`, size: (i * 7) % 30 }));
const COLUMNS: ListColumn<Row>[] = [
  { field: 'name', headerName: 'Name', sortable: true },
  { field: 'size', headerName: 'Size', sortable: true, numeric: true, render: (r) => `${r.size} MB`, sortValue: (r) => r.size },
];
const names = () => screen.getAllByRole('row').slice(1).map((r) => within(r).getAllByRole('cell')[0].textContent);

describe('ListTable', () => {
  it('pages and sorts a list loaded whole, ascending → descending → as given, and opens a row', async () => {
    const onOpen = vi.fn();
    render(<ListTable label="Things" rows={ROWS} rowKey={(r) => r.id} columns={COLUMNS} pageSizes={[10, 25]} initialPageSize={10} onOpen={onOpen} empty="Nothing" />);
    expect(screen.getByRole('table', { name: 'Things' })).toBeInTheDocument();
    expect(names()).toHaveLength(10);
    expect(screen.getByText('1–10 of 30')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Go to next page' }));
    expect(names()[0]).toBe('Item 10');
    await userEvent.click(screen.getByRole('button', { name: 'Size' }));
    await userEvent.click(screen.getByRole('button', { name: 'Go to previous page' }));
    const sizes = () => screen.getAllByRole('cell').flatMap((c) => (c.textContent?.endsWith('MB') ? [c.textContent] : []));
    expect(sizes()).toEqual(['0 MB', '1 MB', '2 MB', '3 MB', '4 MB', '5 MB', '6 MB', '7 MB', '8 MB', '9 MB']);
    await userEvent.click(screen.getByRole('button', { name: 'Size' }));
    expect(sizes()[0]).toBe('29 MB');
    await userEvent.click(screen.getByRole('button', { name: 'Size' }));
    expect(names()[0]).toBe('Item 00');
    await userEvent.click(screen.getByText('Item 03'));
    expect(onOpen).toHaveBeenCalledWith(ROWS[3]);
  });

  it('leaves paging and order of a server-paged list to the server, and says when it is empty', async () => {
    const onPage = vi.fn();
    const onSort = vi.fn();
    const { rerender } = render(
      <ListTable label="Things" rows={ROWS.slice(0, 10)} rowKey={(r) => r.id} columns={COLUMNS} total={30} page={0} pageSize={10} onPage={onPage} pageSizes={[10, 20]} sort={null} onSort={onSort} empty="Nothing" />,
    );
    expect(screen.getByRole('table', { name: 'Things' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Go to next page' }));
    expect(onPage).toHaveBeenCalledWith(1, 10);
    await userEvent.click(screen.getByRole('button', { name: 'Name' }));
    expect(onSort).toHaveBeenCalledWith({ field: 'name', direction: 'asc' });
    expect(screen.getAllByRole('row')).toHaveLength(11); // the rows as given, not sorted here
    rerender(<ListTable label="Things" rows={[]} rowKey={(r: Row) => r.id} columns={COLUMNS} total={0} page={0} pageSize={10} onPage={onPage} pageSizes={[10, 20]} empty="Nothing" />);
    expect(screen.getByText('Nothing')).toBeInTheDocument();
  });
});
