import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import DownloadIcon from '@mui/icons-material/Download';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, reportError } from '../../api/client';
import ConfirmDialog from '../../components/ConfirmDialog';
import { showSnackbar } from '../../lib/feedback';
import { formatDateTime } from '../../lib/format';
import { Panel } from '../visualization/sections';
import { deleteCondition, downloadCondition, keys, saveCondition, uploadConditionFile, useConditions, type Condition, type Step } from './api';
import { useStepSummary } from './stepSummary';

/** Saved conditions: listed, downloaded and uploaded as condition_setting_file.csv (SPEC §9), deleted. */
export default function ConditionsPanel() {
  const { t } = useTranslation('preprocessing');
  const queryClient = useQueryClient();
  const q = useConditions();
  const summary = useStepSummary();
  const input = useRef<HTMLInputElement>(null);
  const [pending, setPending] = useState<{ name: string; steps: Step[] } | null>(null);
  const [deleting, setDeleting] = useState<Condition | null>(null);
  const [busy, setBusy] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.conditions });

  const store = async (c: { name: string; steps: Step[] }, overwrite: boolean) => {
    setBusy(true);
    try {
      await saveCondition({ ...c, confirm_overwrite: overwrite });
      showSnackbar(t('conditionSaved', { name: c.name }));
      setPending(null);
      void refresh();
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) setPending(c);
      else reportError(e);
    } finally {
      setBusy(false);
    }
  };

  const onFile = async (file: File | undefined) => {
    if (!file) return;
    try {
      await store(await uploadConditionFile(file), false);
    } catch {
      /* shown by the client */
    } finally {
      if (input.current) input.current.value = '';
    }
  };

  return (
    <Panel
      title={t('savedConditions')}
      actions={
        <>
          <Button size="small" variant="outlined" startIcon={<UploadFileIcon />} onClick={() => input.current?.click()}>
            {t('uploadFile')}
          </Button>
          <input ref={input} type="file" accept=".csv,text/csv" hidden data-testid="conditions-file-input" onChange={(e) => void onFile(e.target.files?.[0])} />
        </>
      }
    >
      {(q.data ?? []).length === 0 ? (
        <Typography color="text.secondary">{t('noSaved')}</Typography>
      ) : (
        <Box sx={{ overflowX: 'auto' }}>
          <Table size="small" aria-label={t('savedConditions')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('conditionName')}</TableCell>
                <TableCell>{t('steps')}</TableCell>
                <TableCell>{t('fitted')}</TableCell>
                <TableCell>{t('updated')}</TableCell>
                <TableCell align="right" />
              </TableRow>
            </TableHead>
            <TableBody>
              {(q.data ?? []).map((c) => (
                <TableRow key={c.id}>
                  <TableCell sx={{ fontWeight: 600 }}>{c.name}</TableCell>
                  <TableCell sx={{ maxWidth: 560 }}>
                    {c.steps.map((s, i) => (
                      <Typography key={i} variant="body2">
                        {i + 1}. {t(`types.${s.process_type}`)} — {t(`methods.${s.process_type}.${s.method}`, { defaultValue: s.method })}
                        <Typography component="span" variant="caption" color="text.secondary">
                          {' '}
                          {summary(s)}
                        </Typography>
                      </Typography>
                    ))}
                  </TableCell>
                  <TableCell>{c.fitted ? t('info.yes') : t('info.no')}</TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(c.updated_at)}</TableCell>
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                    <Tooltip title={t('downloadFile')}>
                      <IconButton aria-label={t('downloadNamed', { name: c.name })} onClick={() => void downloadCondition(c.id).catch(reportError)}>
                        <DownloadIcon />
                      </IconButton>
                    </Tooltip>
                    <Tooltip title={t('delete')}>
                      <IconButton aria-label={t('deleteNamed', { name: c.name })} onClick={() => setDeleting(c)}>
                        <DeleteOutlineIcon />
                      </IconButton>
                    </Tooltip>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Box>
      )}
      <ConfirmDialog
        open={!!pending}
        title={t('duplicateTitle')}
        text={t('duplicateText', { name: pending?.name ?? '' })}
        confirmLabel={t('overwrite')}
        busy={busy}
        onClose={() => setPending(null)}
        onConfirm={() => pending && void store(pending, true)}
      />
      <ConfirmDialog
        open={!!deleting}
        title={t('deleteTitle')}
        text={t('deleteText', { name: deleting?.name ?? '' })}
        confirmLabel={t('delete')}
        destructive
        busy={busy}
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          setBusy(true);
          try {
            await deleteCondition(deleting.id);
            setDeleting(null);
            void refresh();
          } finally {
            setBusy(false);
          }
        }}
      />
    </Panel>
  );
}
