import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { DatasetColumn } from '../../api/types';
import { formatDateTime, formatInteger, formatNumber } from '../../lib/format';
import { columnTypeLabel } from '../datasets/labels';
import type { HistoryEntry } from './api';

/** A cell of the pre-processing tables: numbers in the UI's format, objects as JSON, nothing for missing values. */
export const cellText = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'number' ? formatNumber(v) : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** What each step of a run did (action, changes, time). */
export function HistoryTable({ history }: { history: HistoryEntry[] }) {
  const { t } = useTranslation('preprocessing');
  return (
    <Table size="small" aria-label={t('history')}>
      <TableHead>
        <TableRow>
          <TableCell>{t('processType')}</TableCell>
          <TableCell>{t('action')}</TableCell>
          <TableCell>{t('changes')}</TableCell>
          <TableCell>{t('modifiedAt')}</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {history.map((h, i) => (
          <TableRow key={i}>
            <TableCell>{t(`types.${h.process_type}`, { defaultValue: h.process_type })}</TableCell>
            <TableCell>{t(`methods.${h.process_type}.${h.action_name}`, { defaultValue: h.action_name })}</TableCell>
            <TableCell sx={{ maxWidth: 520, wordBreak: 'break-word', fontSize: 12 }}>
              {h.changes && typeof h.changes === 'object'
                ? Object.entries(h.changes as Record<string, unknown>)
                    .map(([k, v]) => `${t(`changeKeys.${k}`, { defaultValue: k })}: ${typeof v === 'object' ? JSON.stringify(v) : cellText(v)}`)
                    .join(' · ')
                : cellText(h.changes)}
            </TableCell>
            <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDateTime(h.modified_at)}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** The dataset's columns: type, count, missing values, mean, min and max. */
export function ColumnsTable({ columns }: { columns: DatasetColumn[] }) {
  const { t } = useTranslation('preprocessing');
  return (
    <Table size="small" aria-label={t('columnsTable')}>
      <TableHead>
        <TableRow>
          {['column', 'type', 'count', 'missing', 'mean', 'min', 'max'].map((h) => (
            <TableCell key={h}>{t(`col.${h}`)}</TableCell>
          ))}
        </TableRow>
      </TableHead>
      <TableBody>
        {columns.map((c) => (
          <TableRow key={c.name}>
            <TableCell>{c.name}</TableCell>
            <TableCell>{columnTypeLabel(t, c.type)}</TableCell>
            <TableCell align="right">{formatInteger(c.count ?? null)}</TableCell>
            <TableCell align="right">{c.missing ? <Chip size="small" color="warning" variant="outlined" label={formatInteger(c.missing)} /> : 0}</TableCell>
            <TableCell align="right">{cellText(c.mean)}</TableCell>
            <TableCell align="right">{cellText(c.min)}</TableCell>
            <TableCell align="right">{cellText(c.max)}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** Rows of data under a sticky header: the leading heads, then each column's name on one line; it scrolls within `maxHeight`. */
export function RowsTable({ label, lead, columns, maxHeight, children }: { label: string; lead?: ReactNode; columns: string[]; maxHeight: number; children: ReactNode }) {
  return (
    <Box sx={{ overflow: 'auto', maxHeight }}>
      <Table size="small" stickyHeader aria-label={label}>
        <TableHead>
          <TableRow>
            {lead}
            {columns.map((c) => (
              <TableCell key={c} sx={{ whiteSpace: 'nowrap' }}>
                {c}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>{children}</TableBody>
      </Table>
    </Box>
  );
}

/** The first ten rows of a table (the dataset's, or the run's result), scrolling within 320 px. */
export function HeadRows({ label, columns, rows }: { label: string; columns: string[]; rows: unknown[][] }) {
  return (
    <RowsTable label={label} columns={columns} maxHeight={320}>
      {rows.slice(0, 10).map((row, i) => (
        <TableRow key={i}>
          {row.map((v, j) => (
            <TableCell key={j} sx={{ whiteSpace: 'nowrap' }}>
              {cellText(v)}
            </TableCell>
          ))}
        </TableRow>
      ))}
    </RowsTable>
  );
}
