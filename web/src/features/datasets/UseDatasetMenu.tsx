import Button from '@mui/material/Button';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import ArrowDropDownIcon from '@mui/icons-material/ArrowDropDown';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { Dataset } from '../../api/types';

/** Training types that have a project registration route of their own (SPEC §2 Training). */
const TRAINABLE = new Set([
  'analysis',
  'classification',
  'regression',
  'time_series_anomaly_detection_supervised',
  'time_series_anomaly_detection_unsupervised',
  'soft_sensor',
  'dimensional_compression',
  'discriminant_analysis',
  'clustering',
]);

/** Where a dataset goes next: the areas that start from a dataset, one click from its page. */
export default function UseDatasetMenu({ dataset }: { dataset: Dataset }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const go = (to: string) => {
    setAnchor(null);
    navigate(to);
  };
  const trainingType = dataset.training_type && TRAINABLE.has(dataset.training_type) ? dataset.training_type : 'regression';
  return (
    <>
      <Button variant="contained" endIcon={<ArrowDropDownIcon />} onClick={(e) => setAnchor(e.currentTarget)} aria-haspopup="menu">
        {t('dataset.use')}
      </Button>
      <Menu anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)}>
        <MenuItem onClick={() => go(`/visualization/details/${dataset.id}`)}>{t('dataset.useVisualize')}</MenuItem>
        <MenuItem onClick={() => go(`/pre-processing/details/${dataset.id}`)}>{t('dataset.usePreprocess')}</MenuItem>
        <MenuItem onClick={() => go(`/training/${trainingType}/register/${dataset.id}`)}>{t('dataset.useTrain')}</MenuItem>
        <MenuItem onClick={() => go(`/statistical-analysis/register/${dataset.id}`)}>{t('dataset.useStatistics')}</MenuItem>
      </Menu>
    </>
  );
}
