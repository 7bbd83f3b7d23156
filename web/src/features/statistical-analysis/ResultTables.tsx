import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatInteger, formatNumber } from '../../lib/format';
import type { TestResult } from './api';
import { formatP, formatStat, NS } from './labels';

/** A share as a percentage, to six significant digits. */
export const pct = (x: number) => `${Number((x * 100).toPrecision(6))}%`;
export const n = (v: number | null | undefined) => (v === null || v === undefined ? '—' : formatNumber(v));

/** A titled card of the result page. */
export function Card({ title, children, subtitle }: { title: string; subtitle?: ReactNode; children: ReactNode }) {
  return (
    <Paper variant="outlined" sx={{ p: 2, minWidth: 0 }}>
      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
        {title}
      </Typography>
      {subtitle && (
        <Typography variant="caption" color="text.secondary" component="p">
          {subtitle}
        </Typography>
      )}
      <Box sx={{ mt: 1 }}>{children}</Box>
    </Paper>
  );
}

/** The tables of a result that only some tests have (the result page, DetailsPage.tsx ResultView). */
type Of<K extends TestResult['test_type']> = Extract<TestResult, { test_type: K }>;

/** ANOVA: Tukey's pairwise comparisons. */
export function TukeyTable({ result }: { result: Of<'anova'> }) {
  const { t } = useTranslation(NS);
  return (
    <Card title={t('details.tukey')}>
      <TableContainer>
        <Table size="small" aria-label={t('details.tukey')}>
          <TableHead>
            <TableRow>
              <TableCell>{t('table.pair')}</TableCell>
              <TableCell align="right">{t('table.difference')}</TableCell>
              <TableCell align="right">{t('details.ci', { level: pct(result.confidence_level) })}</TableCell>
              <TableCell align="right">{t('table.pAdj')}</TableCell>
              <TableCell>{t('table.significant')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {result.post_hoc.pairs.map((p) => (
              <TableRow key={`${p.a}|${p.b}`}>
                <TableCell>{`${p.a} − ${p.b}`}</TableCell>
                <TableCell align="right">{n(p.difference)}</TableCell>
                <TableCell align="right">{`[${n(p.low)}, ${n(p.high)}]`}</TableCell>
                <TableCell align="right">{formatP(p.p_value)}</TableCell>
                <TableCell>{p.reject ? <Chip size="small" color="warning" variant="outlined" label={t('table.yes')} /> : t('table.no')}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
    </Card>
  );
}

/** ANOVA: the table of sums of squares between and within groups. */
export function AnovaTable({ result }: { result: Of<'anova'> }) {
  const { t } = useTranslation(NS);
  return (
    <Card title={t('details.anovaTable')}>
      <Table size="small" aria-label={t('details.anovaTable')}>
        <TableHead>
          <TableRow>
            <TableCell>{t('table.source')}</TableCell>
            <TableCell align="right">{t('details.df')}</TableCell>
            <TableCell align="right">{t('table.ss')}</TableCell>
            <TableCell align="right">{t('table.ms')}</TableCell>
            <TableCell align="right">F</TableCell>
            <TableCell align="right">{t('table.p')}</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          <TableRow>
            <TableCell>{t('table.between')}</TableCell>
            <TableCell align="right">{result.df}</TableCell>
            <TableCell align="right">{n(result.anova_table.ss_between)}</TableCell>
            <TableCell align="right">{n(result.anova_table.ms_between)}</TableCell>
            <TableCell align="right">{formatStat(result.statistic?.value)}</TableCell>
            <TableCell align="right">{formatP(result.p_value)}</TableCell>
          </TableRow>
          <TableRow>
            <TableCell>{t('table.within')}</TableCell>
            <TableCell align="right">{result.df2}</TableCell>
            <TableCell align="right">{n(result.anova_table.ss_within)}</TableCell>
            <TableCell align="right">{n(result.anova_table.ms_within)}</TableCell>
            <TableCell />
            <TableCell />
          </TableRow>
        </TableBody>
      </Table>
    </Card>
  );
}

/** Chi-square: the contingency table, observed (expected) counts; expected counts under 5 stand out. */
export function ContingencyTable({ result }: { result: Of<'chi_square'> }) {
  const { t } = useTranslation(NS);
  return (
    <Card title={t('details.contingency')}>
      <TableContainer>
        <Table size="small" aria-label={t('details.contingency')}>
          <TableHead>
            <TableRow>
              <TableCell>{`${result.table.row_variable} \\ ${result.table.column_variable}`}</TableCell>
              {result.table.columns.map((c) => (
                <TableCell key={c} align="right">
                  {c}
                </TableCell>
              ))}
            </TableRow>
          </TableHead>
          <TableBody>
            {result.table.rows.map((r, i) => (
              <TableRow key={r}>
                <TableCell component="th" scope="row">
                  {r}
                </TableCell>
                {result.table.observed[i].map((o, j) => {
                  const e = result.table.expected[i][j];
                  return (
                    <TableCell key={j} align="right" sx={e < 5 ? { color: 'warning.dark' } : undefined}>
                      {formatInteger(o)} ({formatNumber(Number(e.toFixed(2)))})
                    </TableCell>
                  );
                })}
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
    </Card>
  );
}
