import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import { useProfile } from '../account/api';
import { usePageTitle } from '../../app/pageTitle';
import Figure from '../../components/Figure';
import PageHeader from '../../components/PageHeader';
import { formatDateTime } from '../../lib/format';
import { useOperations } from './api';
import { MONO_FONT_STACK } from '../../lib/fonts';

const NS = 'operations';

export default function OperationsPage() {
  const { t } = useTranslation(NS);
  usePageTitle(t('title'));
  const { data: profile } = useProfile({ silent: true });
  const allowed = !!profile?.platform_admin;
  const ops = useOperations(allowed);
  if (profile && !allowed) {
    return (
      <>
        <PageHeader title={t('title')} />
        <Alert severity="info">{t('forbidden')}</Alert>
      </>
    );
  }
  const d = ops.data;
  const queued = d?.queue.reduce((n, k) => n + k.queued, 0) ?? 0;
  const running = d?.queue.reduce((n, k) => n + k.running, 0) ?? 0;
  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      {ops.error && <Alert severity="error">{(ops.error as Error).message}</Alert>}
      {d && (
        <>
          <Stack direction="row" spacing={2} sx={{ mb: 3, flexWrap: 'wrap', rowGap: 2 }}>
            <Figure
              card
              label={t('workers')}
              testId="ops-workers"
              value={
                <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }}>
                  <span>{t('workersValue', { busy: d.pool.busy, workers: d.pool.workers })}</span>
                  <Chip size="small" color={d.pool.running ? 'success' : 'warning'} label={d.pool.running ? t('poolRunning') : t('poolStopped')} />
                </Stack>
              }
            />
            <Figure card label={t('mode')} testId="ops-mode" value={t(`mode_${d.pool.mode}`)} />
            <Figure card label={t('queued')} testId="ops-queued" value={queued} />
            <Figure card label={t('running')} testId="ops-running" value={running} />
            <Figure card label={t('oldest')} testId="ops-oldest" value={d.oldest_queued_at ? formatDateTime(d.oldest_queued_at) : t('none')} />
          </Stack>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 3 }} data-testid="ops-finished">
            {t('finished24h')}: {t('finishedValue', d.finished_24h)}
          </Typography>
          <Typography variant="h6" sx={{ mb: 1 }}>
            {t('queueTitle')}
          </Typography>
          <Paper variant="outlined" sx={{ mb: 3 }}>
            <Table size="small" data-testid="ops-queue">
              <TableHead>
                <TableRow>
                  <TableCell>{t('col.kind')}</TableCell>
                  <TableCell align="right">{t('col.queued')}</TableCell>
                  <TableCell align="right">{t('col.running')}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {d.queue.map((k) => (
                  <TableRow key={k.kind}>
                    <TableCell sx={{ fontFamily: MONO_FONT_STACK }}>{k.kind}</TableCell>
                    <TableCell align="right">{k.queued}</TableCell>
                    <TableCell align="right">{k.running}</TableCell>
                  </TableRow>
                ))}
                {!d.queue.length && (
                  <TableRow>
                    <TableCell colSpan={3} sx={{ color: 'text.secondary' }}>
                      {t('emptyQueue')}
                    </TableCell>
                  </TableRow>
                )}
              </TableBody>
            </Table>
          </Paper>
          <Typography variant="h6" sx={{ mb: 1 }}>
            {t('failuresTitle')}
          </Typography>
          <Paper variant="outlined">
            <Table size="small" data-testid="ops-failures">
              <TableHead>
                <TableRow>
                  <TableCell>{t('col.time')}</TableCell>
                  <TableCell>{t('col.kind')}</TableCell>
                  <TableCell>{t('col.organisation')}</TableCell>
                  <TableCell align="right">{t('col.attempts')}</TableCell>
                  <TableCell>{t('col.error')}</TableCell>
                  <TableCell>{t('col.ids')}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {d.recent_failures.map((f) => (
                  <TableRow key={f.id}>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{f.finished_at ? formatDateTime(f.finished_at) : ''}</TableCell>
                    <TableCell sx={{ fontFamily: MONO_FONT_STACK }}>{f.kind}</TableCell>
                    <TableCell>{f.organisation_name ?? ''}</TableCell>
                    <TableCell align="right">{f.attempts}</TableCell>
                    <TableCell>
                      <Box sx={{ maxWidth: 520, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }} title={f.error ?? ''}>
                        {f.error ?? ''}
                      </Box>
                    </TableCell>
                    {/* the ids to look up in the server's and the engine workers' logs */}
                    <TableCell sx={{ fontFamily: MONO_FONT_STACK, fontSize: 12, whiteSpace: 'nowrap' }}>
                      <div>{t('jobId', { id: f.id })}</div>
                      {f.request_id && <div>{t('requestId', { id: f.request_id })}</div>}
                    </TableCell>
                  </TableRow>
                ))}
                {!d.recent_failures.length && (
                  <TableRow>
                    <TableCell colSpan={6} sx={{ color: 'text.secondary' }}>
                      {t('emptyFailures')}
                    </TableCell>
                  </TableRow>
                )}
              </TableBody>
            </Table>
          </Paper>
        </>
      )}
    </>
  );
}
