import Chip from '@mui/material/Chip';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import { useTranslation } from 'react-i18next';

export const NS = 'optimization';

export function StateChip({ state }: { state: string }) {
  const { t } = useTranslation(NS);
  const color = state === 'done' ? 'success' : state === 'failed' ? 'error' : state === 'running' || state === 'queued' ? 'info' : 'default';
  return <Chip size="small" color={color} label={t(`states.${state}`)} />;
}

/** The head of a features table, the same in the wizard's features step and on the project page: name, kind, setting,
 * unit, and where the range can still be chosen, the training data's range beside it. */
export function FeaturesTableHead({ trainingRange = false }: { trainingRange?: boolean }) {
  const { t } = useTranslation(NS);
  return (
    <TableHead>
      <TableRow>
        <TableCell>{t('features.name')}</TableCell>
        <TableCell>{t('features.kind')}</TableCell>
        <TableCell>{t('features.setting')}</TableCell>
        <TableCell>{t('features.unit')}</TableCell>
        {trainingRange && <TableCell>{t('parameters.trainingRange')}</TableCell>}
      </TableRow>
    </TableHead>
  );
}
