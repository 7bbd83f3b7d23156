import { useTranslation } from 'react-i18next';
import type { AreaProps } from '../../app/area';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import DatasetPicker from './DatasetPicker';
import './i18nBundle';
import VisualizationDetailsPage from './VisualizationDetailsPage';

function VisualizationListPage() {
  const { t } = useTranslation('visualization');
  usePageTitle(t('title'));
  return (
    <>
      <PageHeader title={t('title')} subtitle={t('listSubtitle')} />
      <DatasetPicker basePath="/visualization" />
    </>
  );
}

/** Visualization area: 'list' (/visualization) and 'details' (/visualization/details/{dataset_id}). */
export default function VisualizationArea({ page }: AreaProps) {
  if (page === 'details') return <VisualizationDetailsPage />;
  return <VisualizationListPage />;
}
