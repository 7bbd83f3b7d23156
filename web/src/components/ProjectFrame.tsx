import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import TextField from '@mui/material/TextField';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import ConfirmDialog from './ConfirmDialog';
import PageHeader from './PageHeader';

export interface ProjectFrameProps {
  name: string;
  /** the project's type in the reader's language */
  typeLabel: string;
  /** the area's state chip */
  state: ReactNode;
  /** further facts for the line under the name (dataset, counts), each short */
  facts?: (string | null | undefined | false)[];
  /** the area's own actions before Rename and Delete: Train, Stop… */
  actions?: ReactNode;
  /** Saves a new name (already trimmed, never empty). */
  onRename: (name: string) => Promise<unknown>;
  /** Deletes the project and leaves the page. */
  onDelete: () => Promise<unknown>;
  children: ReactNode;
}

/**
 * The frame of every project page (training, time series, images; issue 33): the name, then type · state · facts,
 * and the actions in one order — the area's own (Train, Stop), Rename, Delete — with their dialogs; the sections below.
 */
export default function ProjectFrame(p: ProjectFrameProps) {
  const { t } = useTranslation();
  const [renaming, setRenaming] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [busy, setBusy] = useState(false);
  const run = async (f: () => Promise<unknown>, done: () => void) => {
    setBusy(true);
    try {
      await f();
      done();
    } catch {
      /* the API client has shown the server's message; the dialog stays open with what was typed */
    } finally {
      setBusy(false);
    }
  };
  const facts = [p.typeLabel, ...(p.facts ?? [])].filter((x): x is string => !!x);
  return (
    <Box>
      <PageHeader
        title={p.name}
        subtitle={
          <Box component="span" sx={{ display: 'inline-flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }} data-testid="project-facts">
            <span>{facts[0]}</span>
            {p.state}
            {facts.length > 1 && <span>{facts.slice(1).join(' · ')}</span>}
          </Box>
        }
        actions={
          <>
            {p.actions}
            <Button startIcon={<EditOutlinedIcon />} onClick={() => setRenaming(p.name)}>
              {t('project.rename')}
            </Button>
            <Button color="error" startIcon={<DeleteOutlineIcon />} onClick={() => setDeleting(true)}>
              {t('project.delete')}
            </Button>
          </>
        }
      />
      {p.children}
      <Dialog open={renaming !== null} onClose={() => setRenaming(null)} maxWidth="xs" fullWidth aria-labelledby="rename-title">
        <Box
          component="form"
          onSubmit={(e) => {
            e.preventDefault();
            if (renaming?.trim()) void run(() => p.onRename(renaming.trim()), () => setRenaming(null));
          }}
        >
          <DialogTitle id="rename-title">{t('project.rename')}</DialogTitle>
          <DialogContent sx={{ pt: '8px !important' }}>
            <TextField autoFocus fullWidth label={t('project.name')} value={renaming ?? ''} onChange={(e) => setRenaming(e.target.value)} slotProps={{ htmlInput: { maxLength: 200 } }} />
          </DialogContent>
          <DialogActions>
            <Button onClick={() => setRenaming(null)}>{t('common.cancel')}</Button>
            <Button type="submit" variant="contained" disabled={!renaming?.trim() || busy}>
              {t('project.rename')}
            </Button>
          </DialogActions>
        </Box>
      </Dialog>
      <ConfirmDialog
        open={deleting}
        title={t('project.deleteTitle')}
        text={t('project.deleteText', { name: p.name })}
        confirmLabel={t('project.delete')}
        destructive
        busy={busy}
        onClose={() => setDeleting(false)}
        onConfirm={() => void run(p.onDelete, () => setDeleting(false))}
      />
    </Box>
  );
}
