import type { AreaProps } from '../../app/area';
import AreaUnavailable from '../../app/AreaUnavailable';
import { isImageType } from './api';
import ClassificationBrowse from './ClassificationBrowse';
import DatasetImages from './DatasetImages';
import DetailsPage from './DetailsPage';
import PredictionReport from './PredictionReport';
import PredictionWizard from './PredictionWizard';
import PreprocessPage from './PreprocessPage';
import RegisterPage from './RegisterPage';
import ResultPage from './ResultPage';
import './shared';
import ThresholdPage from './ThresholdPage';

/**
 * Image OK/NG analysis and image classification (one lazily loaded chunk). Pages: 'register:<type>', 'details',
 * 'result:<type>', 'result:threshold', 'report', 'prediction-report', 'classification:images|class', 'predict' (the inference wizard), 'preprocess' (/pre-processing/details/{id} of an image dataset), and 'dataset:<id>' (embedded in the dataset page).
 */
export default function ImagesArea({ page, datasetId }: AreaProps & { datasetId?: string }) {
  const [kind, type] = page.split(':');
  if (kind === 'register' && isImageType(type)) return <RegisterPage key={type} type={type} />;
  if (kind === 'details') return <DetailsPage />;
  if (kind === 'result' && type === 'threshold') return <ThresholdPage />;
  if ((kind === 'result' && isImageType(type)) || kind === 'report') return <ResultPage />;
  if (kind === 'prediction-report') return <PredictionReport />;
  if (kind === 'dataset' && datasetId) return <DatasetImages id={datasetId} />;
  if (kind === 'preprocess') return <PreprocessPage />;
  if (kind === 'predict') return <PredictionWizard />;
  if (kind === 'classification' && (type === 'images' || type === 'class')) return <ClassificationBrowse key={type} view={type} />;
  return <AreaUnavailable area="training" />;
}
