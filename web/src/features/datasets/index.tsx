import type { AreaProps } from '../../app/area';
import DatasetDetailsPage from './DatasetDetailsPage';
import DatasetListPage from './DatasetListPage';
import DatasetRegisterPage from './DatasetRegisterPage';

/** Dataset area: 'list' (/dataset), 'register' (/dataset/register), 'details' (/dataset/details/{id}/{data_type}). */
export default function DatasetsArea({ page }: AreaProps) {
  if (page === 'register') return <DatasetRegisterPage />;
  if (page === 'details') return <DatasetDetailsPage />;
  return <DatasetListPage />;
}
