import type { AreaProps } from '../../app/area';
import { lazyWithTimeout } from '../../app/lazy';
import DatasetListPage from './DatasetListPage';

// The list is the first page most people open: the details and register pages (the DataGrid, the upload form)
// load only when visited.
const DatasetDetailsPage = lazyWithTimeout(() => import('./DatasetDetailsPage'));
const DatasetRegisterPage = lazyWithTimeout(() => import('./DatasetRegisterPage'));

/** Dataset area: 'list' (/dataset), 'register' (/dataset/register), 'details' (/dataset/details/{id}/{data_type}). */
export default function DatasetsArea({ page }: AreaProps) {
  if (page === 'register') return <DatasetRegisterPage />;
  if (page === 'details') return <DatasetDetailsPage />;
  return <DatasetListPage />;
}
