import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Tab from '@mui/material/Tab';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import InfoGrid from '../../components/InfoGrid';
import type { PlatformProject, TsInterface } from './api';
import { NS } from './common';

const pre = { bgcolor: 'action.hover', p: 1.5, borderRadius: 1, overflowX: 'auto', fontSize: 13, m: 0 } as const;

type Field = { name: string; type: string; meaning?: string };

/** The interface's inputs or outputs: a field a row; an output's type is code and it says what it means. */
function FieldTable({ kind, fields }: { kind: 'inputs' | 'outputs'; fields: Field[] }) {
  const { t } = useTranslation(NS);
  const outputs = kind === 'outputs';
  return (
    <Box>
      <Typography variant="subtitle2" component="h3">
        {t(`ts.${kind}`)}
      </Typography>
      <Table size="small" aria-label={t(`ts.${kind}`)}>
        <TableHead>
          <TableRow>
            <TableCell>{t('ts.name')}</TableCell>
            <TableCell>{t('ts.type')}</TableCell>
            {outputs && <TableCell>{t('ts.meaning')}</TableCell>}
          </TableRow>
        </TableHead>
        <TableBody>
          {fields.map((f) => (
            <TableRow key={f.name}>
              <TableCell>
                <code>{f.name}</code>
              </TableCell>
              <TableCell>{outputs ? <code>{f.type}</code> : f.type}</TableCell>
              {outputs && <TableCell>{f.meaning}</TableCell>}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Box>
  );
}

/** The requests a client sends: a stream call with curl, a stream loop in Python, a block, the OpenAPI document. */
export function tsExamples(p: PlatformProject, d: TsInterface) {
  const stream = JSON.stringify(d.examples.stream);
  const block = JSON.stringify(d.examples.block, null, 2);
  const curl = (json: string) => `curl -X POST '${p.endpoint}' \\\n  -H "X-API-Key: $MITATE_API_KEY" \\\n  -H 'Content-Type: application/json' \\\n  -d '${json}'`;
  const signals = d.signals.map((s) => `"${s.name}": row["${s.name}"]`).join(', ');
  return {
    stream: curl(stream),
    block: curl(block),
    python: [
      'import os, requests',
      '',
      'def score(row, series="line-1"):',
      `    """row: {"${d.time_column}": ..., one number per signal}; the server keeps the series' recent rows."""`,
      '    res = requests.post(',
      `        "${p.endpoint}",`,
      '        headers={"X-API-Key": os.environ["MITATE_API_KEY"]},',
      `        json={"series": series, "rows": [{"${d.time_column}": row["${d.time_column}"], ${signals}}]},`,
      '        timeout=10,',
      '    )',
      '    res.raise_for_status()',
      '    answer = res.json()["detail"]["response"]["predictions"][0]',
      '    return answer["status"], answer["anomaly_score"], answer["alarm"]',
    ].join('\n'),
    openapi: JSON.stringify(JSON.parse(d.openapi), null, 2),
  };
}

/** What a client of a hosted time-series detector sends and gets back: shown on the API's page. */
export default function TimeSeriesPanel({ project, data }: { project: PlatformProject; data: TsInterface }) {
  const { t, i18n } = useTranslation(NS);
  const [tab, setTab] = useState<'stream' | 'block' | 'python' | 'openapi'>('stream');
  const d = data;
  const ex = tsExamples(project, d);
  const num = (v: number | null) => (v === null ? '—' : v.toLocaleString(i18n.language, { maximumSignificantDigits: 6 }));
  const outputText = (name: string) => {
    const s = name.startsWith('contribution_') ? name.slice('contribution_'.length) : null;
    return s === null ? t(`ts.out.${name}`) : t('ts.out.contribution', { signal: s });
  };
  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 2 }} data-testid="ts-interface">
      <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
        {t('ts.title')}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        {t('ts.lead', { column: d.time_column })}
      </Typography>
      <InfoGrid
        items={[
          { label: t('ts.timeColumn'), value: <code>{d.time_column}</code> },
          { label: t('ts.timeType'), value: t(`ts.timeTypes.${d.time_type ?? 'either'}`) },
          { label: t('ts.history'), value: t('ts.historyValue', { count: d.history_rows }) + (d.span ? t('ts.historySpan', { span: d.span }) : '') },
          { label: t('ts.warmup'), value: t('ts.warmupValue', { count: d.warmup_rows }) },
          { label: t('ts.alarmRule'), value: t('ts.alarmRuleValue', { k: d.alarm_rule.k, n: d.alarm_rule.n }) },
          { label: t('ts.threshold'), value: `${num(d.threshold)} (${t(`ts.source.${d.threshold_source}`)})` },
          { label: t('ts.trainedThreshold'), value: num(d.trained_threshold) },
          { label: t('ts.resample'), value: d.resample ?? t('ts.none') },
          { label: t('ts.streams'), value: t('ts.streamsValue', { exact: d.stream.exact_rows, max: d.stream.max_rows, series: d.stream.max_series, hours: Math.round(d.stream.idle_minutes / 60) }), wide: true },
        ]}
      />
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '1fr 2fr' }, gap: 2, mt: 2 }}>
        <FieldTable kind="inputs" fields={[{ name: d.time_column, type: t(`ts.timeTypes.${d.time_type ?? 'either'}`) }, ...d.signals.map((x) => ({ name: x.name, type: t('ts.number') }))]} />
        <FieldTable kind="outputs" fields={d.outputs.map((o) => ({ name: o.name, type: o.type, meaning: outputText(o.name) }))} />
      </Box>
      <Typography variant="subtitle2" component="h3" sx={{ mt: 2 }}>
        {t('details.examples')}
      </Typography>
      <Tabs value={tab} onChange={(_, v) => setTab(v)} sx={{ mb: 1 }}>
        <Tab value="stream" label={t('ts.tab.stream')} />
        <Tab value="block" label={t('ts.tab.block')} />
        <Tab value="python" label="Python" />
        <Tab value="openapi" label={t('details.openapi')} />
      </Tabs>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        {t(`ts.hint.${tab}`, { count: d.history_rows })}
      </Typography>
      <Box component="pre" sx={pre} data-testid="ts-example">
        {ex[tab]}
      </Box>
    </Paper>
  );
}
