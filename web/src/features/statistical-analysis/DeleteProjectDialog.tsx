import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import ConfirmDialog from '../../components/ConfirmDialog';
import { showSnackbar } from '../../lib/feedback';
import { deleteProject, statKeys } from './api';
import { NS } from './labels';

/** Confirmation, then DELETE /api/statistical/analysis/project/delete/{id}. */
export default function DeleteProjectDialog({ project, onClose, onDeleted }: { project: { id: string; name: string } | null; onClose: () => void; onDeleted?: () => void }) {
  const { t } = useTranslation(NS);
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: (id: string) => deleteProject(id),
    onSuccess: (_r, id) => {
      showSnackbar(t('details.deleted'));
      onClose();
      onDeleted?.();
      queryClient.removeQueries({ queryKey: statKeys.project(id) });
      queryClient.removeQueries({ queryKey: statKeys.run(id) });
      void queryClient.invalidateQueries({ queryKey: ['statistical-analysis', 'list'] });
      void queryClient.invalidateQueries({ queryKey: statKeys.counts });
    },
  });
  return (
    <ConfirmDialog
      open={!!project}
      title={t('details.deleteTitle')}
      text={t('details.deleteText', { name: project?.name ?? '' })}
      confirmLabel={t('details.delete')}
      destructive
      busy={remove.isPending}
      onConfirm={() => project && remove.mutate(project.id)}
      onClose={onClose}
    />
  );
}
