import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { Dataset } from '../../api/types';
import ConfirmDialog from '../../components/ConfirmDialog';
import { showSnackbar } from '../../lib/feedback';
import { datasetKeys, deleteDataset } from './api';

/** Confirmation, then DELETE /api/dataset/delete/{id}. */
export default function DeleteDatasetDialog({
  dataset,
  onClose,
  onDeleted,
}: {
  dataset: Pick<Dataset, 'id' | 'name'> | null;
  onClose: () => void;
  onDeleted?: () => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: (id: string) => deleteDataset(id),
    onSuccess: (_r, id) => {
      showSnackbar(t('dataset.deleted'));
      onClose();
      onDeleted?.();
      // Not refetched: the page that showed it is being left.
      void queryClient.invalidateQueries({ queryKey: datasetKeys.one(id), refetchType: 'none' });
      void queryClient.invalidateQueries({ queryKey: ['datasets', 'list'] });
    },
  });
  return (
    <ConfirmDialog
      open={!!dataset}
      title={t('dataset.deleteTitle')}
      text={t('dataset.deleteText', { name: dataset?.name ?? '' })}
      confirmLabel={t('common.delete')}
      destructive
      busy={remove.isPending}
      onConfirm={() => dataset && remove.mutate(dataset.id)}
      onClose={onClose}
    />
  );
}
