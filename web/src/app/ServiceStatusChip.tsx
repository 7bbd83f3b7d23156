import Chip from '@mui/material/Chip';
import Tooltip from '@mui/material/Tooltip';
import CloudOffIcon from '@mui/icons-material/CloudOff';
import { useTranslation } from 'react-i18next';
import { useServiceStatus } from '../api/me';

/** Shown in the top bar only while the compute workers are stopped (status polled every 30 s). */
export default function ServiceStatusChip() {
  const { t } = useTranslation();
  const { data } = useServiceStatus();
  if (!data || data.running) return null;
  return (
    <Tooltip title={t('topbar.serviceStoppedHint')}>
      <Chip
        icon={<CloudOffIcon />}
        label={t('topbar.serviceStopped')}
        color="warning"
        size="small"
        sx={{ mr: 1, fontWeight: 600, bgcolor: '#fff4e5', color: '#8a4b00', '& .MuiChip-icon': { color: '#b26a00' } }}
      />
    </Tooltip>
  );
}
