import Box from '@mui/material/Box';
import i18n from 'i18next';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { area, type AreaProps } from '../../app/area';
import PageLoading from '../../components/PageLoading';
import { useQuery } from '@tanstack/react-query';
import { answer, http, per } from '../../api/typed';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import '../visualization/i18nBundle';
import DatasetPicker from '../visualization/DatasetPicker';
import ConditionsPanel from './ConditionsPanel';
import en from './i18n/en.json';
import ja from './i18n/ja.json';
import PreprocessingDetailsPage from './PreprocessingDetailsPage';

i18n.addResourceBundle('en', 'preprocessing', en, true, true);
i18n.addResourceBundle('ja', 'preprocessing', ja, true, true);

function PreprocessingListPage() {
  const { t } = useTranslation('preprocessing');
  usePageTitle(t('title'));
  return (
    <>
      <PageHeader title={t('title')} subtitle={t('listSubtitle')} />
      <ConditionsPanel />
      <Box sx={{ mt: 2 }}>
        <DatasetPicker basePath="/pre-processing" />
      </Box>
    </>
  );
}

/** A ZIP of images is pre-processed by the images area (crop, resize, rotate, ...), in its own lazy chunk. */
const Images = area(() => import('../images'));

function DetailsByKind() {
  const { dataset_id = '' } = useParams();
  // silent: a missing dataset is the details page's own message to give
  const { data, isPending } = useQuery({
    queryKey: ['preprocessing', 'dataset-kind', dataset_id],
    queryFn: ({ signal }) => answer(http.GET('/api/dataset/{id}/{min_schema}', { params: { path: { id: dataset_id, min_schema: 'false' } }, ...per({ signal, silent: true }) })),
    retry: false,
  });
  if (isPending) return <PageLoading />;
  if (data?.file_name.toLowerCase().endsWith('.zip')) return <Images page="preprocess" />;
  return <PreprocessingDetailsPage />;
}

/** Pre-processing area: 'list' (/pre-processing) and 'details' (/pre-processing/details/{dataset_id}; image datasets go to the images area). */
export default function PreprocessingArea({ page }: AreaProps) {
  if (page === 'details') return <DetailsByKind />;
  return <PreprocessingListPage />;
}
