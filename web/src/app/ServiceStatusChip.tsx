import Chip from '@mui/material/Chip';
import Tooltip from '@mui/material/Tooltip';
import CloudOffIcon from '@mui/icons-material/CloudOff';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useCanWrite, useServiceStatus } from '../api/me';
import { answer, http } from '../api/typed';

/**
 * Shown in the top bar only while this organisation's jobs do not run (status polled every 30 s): either the
 * organisation paused its share of the pool (writers resume it with a click, POST /api/services/start) or
 * the platform's pool is stopped (only platform administrators start it).
 */
export default function ServiceStatusChip() {
  const { t } = useTranslation();
  const { data } = useServiceStatus();
  const canWrite = useCanWrite();
  const client = useQueryClient();
  const resume = useMutation({
    mutationFn: () => answer(http.POST('/api/services/start')),
    onSuccess: (status) => client.setQueryData(['services', 'status'], status),
  });
  if (!data || data.running) return null;
  const paused = data.paused === true;
  const canResume = paused && canWrite && data.pool_running !== false;
  const hint = paused ? (canResume ? t('topbar.servicePausedResumeHint') : t('topbar.servicePausedHint')) : t('topbar.serviceStoppedHint');
  return (
    <Tooltip title={hint}>
      <Chip
        icon={<CloudOffIcon />}
        label={paused ? t('topbar.servicePaused') : t('topbar.serviceStopped')}
        color="warning"
        size="small"
        onClick={canResume && !resume.isPending ? () => resume.mutate() : undefined}
        sx={{ mr: 1, fontWeight: 600, bgcolor: '#fff4e5', color: '#8a4b00', '& .MuiChip-icon': { color: '#b26a00' } }}
      />
    </Tooltip>
  );
}
