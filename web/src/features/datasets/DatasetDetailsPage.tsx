import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Tab from '@mui/material/Tab';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import DownloadIcon from '@mui/icons-material/Download';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import { useMutation } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import type { Dataset, PreprocessStep } from '../../api/types';
import { useCanWrite } from '../../api/me';
import { usePageTitle } from '../../app/pageTitle';
import InfoGrid from '../../components/InfoGrid';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { formatBytes, formatDateTime, formatInteger } from '../../lib/format';
import { downloadOriginal, useDataset } from './api';
import ColumnsTab from './ColumnsTab';
import DataTab from './DataTab';
import DeleteDatasetDialog from './DeleteDatasetDialog';
import EditDatasetDialog from './EditDatasetDialog';
import { dataTypeLabel, delimiterLabel, encodingLabel, trainingTypeLabel, typeLabel } from './labels';
import StatisticsTab from './StatisticsTab';
import UseDatasetMenu from './UseDatasetMenu';

const TABS = ['data', 'columns', 'statistics'] as const;
type TabKey = (typeof TABS)[number];

function changesText(changes: unknown): string {
  if (changes === null || changes === undefined) return '';
  if (typeof changes === 'string') return changes;
  if (Array.isArray(changes)) return changes.map((c) => (typeof c === 'string' ? c : JSON.stringify(c))).join(', ');
  if (typeof changes === 'object') {
    return Object.entries(changes as Record<string, unknown>)
      .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(', ');
  }
  return String(changes);
}

function HistoryTable({ history }: { history: PreprocessStep[] }) {
  const { t } = useTranslation();
  return (
    <Table size="small" aria-label={t('dataset.history.title')}>
      <TableHead>
        <TableRow>
          <TableCell>{t('dataset.history.processType')}</TableCell>
          <TableCell>{t('dataset.history.action')}</TableCell>
          <TableCell>{t('dataset.history.changes')}</TableCell>
          <TableCell>{t('dataset.history.modifiedAt')}</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {history.map((h, i) => (
          <TableRow key={i}>
            <TableCell>{h.process_type}</TableCell>
            <TableCell>{h.action_name}</TableCell>
            <TableCell sx={{ wordBreak: 'break-word' }}>{changesText(h.changes)}</TableCell>
            <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(h.modified_at)}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

function Metadata({ dataset }: { dataset: Dataset }) {
  const { t } = useTranslation();
  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
      <InfoGrid
        minWidth={170}
        items={[
          { label: t('dataset.fields.dataType'), value: dataTypeLabel(t, dataset.data_type) },
          { label: t('dataset.fields.type'), value: typeLabel(t, dataset.type) },
          { label: t('dataset.fields.trainingType'), value: trainingTypeLabel(t, dataset.training_type) },
          { label: t('dataset.fields.category'), value: dataset.category },
          // A ZIP of images has images, not rows and columns, and no text encoding, delimiter or datetime column.
          ...(isImageDataset(dataset)
            ? [{ label: t('dataset.fields.imageCount'), value: formatInteger(dataset.row_count) }]
            : [{ label: t('dataset.fields.shape'), value: t('dataset.shape', { rows: formatInteger(dataset.row_count), columns: formatInteger(dataset.column_count) }) }]),
          { label: t('dataset.fields.fileName'), value: dataset.file_name },
          { label: t('dataset.fields.size'), value: formatBytes(dataset.file_size) },
          ...(isImageDataset(dataset)
            ? []
            : [
                { label: t('dataset.fields.encoding'), value: encodingLabel(dataset.encoding) },
                { label: t('dataset.fields.delimiter'), value: delimiterLabel(t, dataset.delimiter) },
                { label: t('dataset.fields.datetimeColumn'), value: dataset.datetime_column },
              ]),
          { label: t('dataset.fields.createdAt'), value: formatDateTime(dataset.created_at) },
          { label: t('dataset.fields.updatedAt'), value: formatDateTime(dataset.updated_at) },
          {
            label: t('dataset.fields.preprocessed'),
            value: dataset.preprocessed ? <Chip size="small" color="secondary" label={t('dataset.preprocessed')} /> : t('common.no'),
          },
          ...(dataset.parent_dataset_name ? [{ label: t('dataset.fields.parent'), value: dataset.parent_dataset_name }] : []),
          ...(dataset.comment ? [{ label: t('dataset.fields.comment'), value: dataset.comment, wide: true }] : []),
        ]}
      />
      {dataset.preprocess_history?.length > 0 && (
        <Box sx={{ mt: 2 }}>
          <Typography variant="subtitle2" sx={{ mb: 0.5 }}>
            {t('dataset.history.title')}
          </Typography>
          <HistoryTable history={dataset.preprocess_history} />
        </Box>
      )}
    </Paper>
  );
}

/** A ZIP of images: counts, gallery and viewer come from the images area (its own lazy chunk). */
const DatasetImages = lazy(() => import('../images/DatasetImages'));
function isImageDataset(d: Dataset): boolean {
  return d.file_name.toLowerCase().endsWith('.zip');
}

export default function DatasetDetailsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { dataset_id = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const tab: TabKey = (TABS as readonly string[]).includes(params.get('tab') ?? '') ? (params.get('tab') as TabKey) : 'data';
  const { data: dataset, isPending, isError } = useDataset(dataset_id);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const download = useMutation({ mutationFn: (d: Dataset) => downloadOriginal(d) });
  const canWrite = useCanWrite();
  usePageTitle(dataset?.name);

  if (isPending) return <PageLoading />;
  if (isError || !dataset) return <Alert severity="error">{t('errors.loadFailed')}</Alert>;

  return (
    <>
      <PageHeader
        title={dataset.name}
        actions={
          <>
            {canWrite && <UseDatasetMenu dataset={dataset} />}
            {canWrite && (
              <Button startIcon={<EditOutlinedIcon />} variant="outlined" onClick={() => setEditing(true)}>
                {t('common.edit')}
              </Button>
            )}
            <Button startIcon={<DownloadIcon />} variant="outlined" onClick={() => download.mutate(dataset)} disabled={download.isPending}>
              {t('dataset.downloadOriginal')}
            </Button>
            {canWrite && (
              <Button startIcon={<DeleteOutlineIcon />} variant="outlined" color="error" onClick={() => setDeleting(true)}>
                {t('common.delete')}
              </Button>
            )}
          </>
        }
      />
      <Metadata dataset={dataset} />
      {isImageDataset(dataset) ? (
        <Suspense fallback={<PageLoading />}>
          <DatasetImages id={dataset.id} />
        </Suspense>
      ) : (
      <>
      <Tabs
        value={tab}
        onChange={(_, v: TabKey) =>
          setParams(
            (p) => {
              const n = new URLSearchParams(p);
              if (v === 'data') n.delete('tab');
              else n.set('tab', v);
              return n;
            },
            { replace: true },
          )
        }
        sx={{ mb: 1.5, borderBottom: 1, borderColor: 'divider', minHeight: 40, '& .MuiTab-root': { minHeight: 40 } }}
      >
        <Tab value="data" label={t('dataset.tabs.data')} />
        <Tab value="columns" label={t('dataset.tabs.columns')} />
        <Tab value="statistics" label={t('dataset.tabs.statistics')} />
      </Tabs>
      {tab === 'data' && <DataTab datasetId={dataset.id} columnTypes={dataset.columns} />}
      {tab === 'columns' && <ColumnsTab columns={dataset.columns ?? []} />}
      {tab === 'statistics' && <StatisticsTab dataset={dataset} />}
      </>
      )}
      <EditDatasetDialog dataset={editing ? dataset : null} onClose={() => setEditing(false)} />
      <DeleteDatasetDialog dataset={deleting ? dataset : null} onClose={() => setDeleting(false)} onDeleted={() => navigate('/dataset', { replace: true })} />
    </>
  );
}
