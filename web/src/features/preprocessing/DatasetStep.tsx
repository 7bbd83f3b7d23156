import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import { useTranslation } from 'react-i18next';
import InfoGrid from '../../components/InfoGrid';
import { formatInteger } from '../../lib/format';
import { Panel } from '../visualization/sections';
import type { useLoadedDataset } from './api';
import { ColumnsTable, HeadRows } from './tables';

export type LoadedDataset = NonNullable<ReturnType<typeof useLoadedDataset>['data']>;

/** Step 1 of the pre-processing wizard: the dataset as it is (facts, columns, first rows), then Next. */
export default function DatasetStep({ loaded, onNext }: { loaded: LoadedDataset; onNext: () => void }) {
  const { t } = useTranslation('preprocessing');
  const { dataset, columns, rows } = loaded;
  return (
    <>
      <Panel title={t('wizard.dataset')}>
        <InfoGrid
          items={[
            { label: t('info.rows'), value: formatInteger(dataset.row_count) },
            { label: t('info.columns'), value: formatInteger(dataset.column_count) },
            { label: t('info.datetime'), value: dataset.datetime_column ?? '–' },
            { label: t('info.preprocessed'), value: dataset.preprocessed ? t('info.yes') : t('info.no') },
            ...(dataset.parent_dataset_name ? [{ label: t('info.parent'), value: dataset.parent_dataset_name }] : []),
          ]}
        />
      </Panel>
      <Panel title={t('columnsTable')}>
        <Box sx={{ overflowX: 'auto' }}>
          <ColumnsTable columns={columns} />
        </Box>
      </Panel>
      <Panel title={t('firstRows')}>
        <HeadRows
          label={t('firstRows')}
          columns={columns.map((c) => c.name)}
          rows={rows}
        />
      </Panel>
      <Button variant="contained" onClick={onNext}>
        {t('next')}
      </Button>
    </>
  );
}
