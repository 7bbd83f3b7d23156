import Chip from '@mui/material/Chip';
import { useTranslation } from 'react-i18next';

export const NS = 'optimization';

export function StateChip({ state }: { state: string }) {
  const { t } = useTranslation(NS);
  const color = state === 'done' ? 'success' : state === 'failed' ? 'error' : state === 'running' || state === 'queued' ? 'info' : 'default';
  return <Chip size="small" color={color} label={t(`states.${state}`)} />;
}
