import { type QueryKey, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { showSnackbar } from '../lib/feedback';
import type { ProjectFrameProps } from './ProjectFrame';

/** What Rename and Delete do on one area's project pages: the area's calls, its cached answers and its list. */
export interface ProjectArea<P> {
  /** the cached answer of a project page (the rename call answers the same shape) */
  key: (id: string) => QueryKey;
  rename: (id: string, name: string) => Promise<unknown>;
  /** `project` as the page shows it, for areas whose delete call depends on it (the project type) */
  remove: (id: string, project: P) => Promise<unknown>;
  /** the cached list answers a new name or a deletion makes stale */
  lists: QueryKey;
  /** where Delete leaves to: the area's list page */
  listPath: string;
}

/**
 * ProjectFrame's Rename and Delete for a project of `area` (issue 33: one behaviour on every project page): the new
 * name replaces the page's cached answer and the lists are read again; after Delete the page leaves for the list,
 * saying so. Called before a page's early returns, with the project once it is loaded.
 */
export function useProjectActions<P>(area: ProjectArea<P>, id: string, project: P | undefined): Pick<ProjectFrameProps, 'onRename' | 'onDelete'> {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const navigate = useNavigate();
  return {
    onRename: async (name) => {
      qc.setQueryData(area.key(id), await area.rename(id, name));
      await qc.invalidateQueries({ queryKey: area.lists });
    },
    onDelete: async () => {
      if (project === undefined) return; // Delete is offered once the project is shown
      await area.remove(id, project);
      navigate(area.listPath);
      qc.removeQueries({ queryKey: area.key(id) });
      await qc.invalidateQueries({ queryKey: area.lists });
      showSnackbar(t('project.deleted'));
    },
  };
}
