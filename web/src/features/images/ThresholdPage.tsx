import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Slider from '@mui/material/Slider';
import TextField from '@mui/material/TextField';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import EChart from '../../charts/EChart';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { showSnackbar } from '../../lib/feedback';
import { binLabels, imageKeys, ratesAt, saveThreshold, useDetail } from './api';
import './charts';
import { fmt, NS, pct } from './shared';

const BINS = 30;

/** OK/NG threshold: score histograms of OK and NG, a draggable threshold with miss and over-detection rates, and two rules. */
export default function ThresholdPage() {
  const { t, i18n } = useTranslation(NS);
  const { project_id: id, model_key: key } = useParams();
  const qc = useQueryClient();
  const { data } = useDetail(id, key);
  const [split, setSplit] = useState<'validation' | 'test'>('validation');
  const [value, setValue] = useState<number | null>(null);
  const [target, setTarget] = useState('0.05');
  const [perc, setPerc] = useState('99');
  usePageTitle(t('threshold.title'));
  useEffect(() => {
    if (data && value === null) setValue(data.threshold ?? 0);
  }, [data, value]);
  const scores = useMemo(() => (data?.report.scores ?? []).filter((s) => s.split === split), [data, split]);
  const all = data?.report.scores ?? [];
  const lo = Math.min(...all.map((s) => s.score));
  const hi = Math.max(...all.map((s) => s.score));
  const hist = useMemo(() => {
    const w = (hi - lo) / BINS || 1;
    const ok = Array(BINS).fill(0);
    const ng = Array(BINS).fill(0);
    for (const s of scores) {
      const b = Math.min(BINS - 1, Math.floor((s.score - lo) / w));
      (s.label === 'NG' ? ng : ok)[b]++;
    }
    return { ok, ng, labels: binLabels(lo, w, BINS), w };
  }, [scores, lo, hi]);
  if (!data || value === null) return <PageLoading />;
  const r = ratesAt(scores, value);
  const apply = (b: Parameters<typeof saveThreshold>[2]) =>
    saveThreshold(id!, key!, b)
      .then((d) => {
        qc.setQueryData([...imageKeys.detail(id!, key!), i18n.language], d);
        void qc.invalidateQueries({ queryKey: imageKeys.project(id!) }); // its models' figures follow the threshold
        setValue(d.threshold);
        showSnackbar(t('threshold.saved'));
      })
      .catch(() => undefined);
  const markX = Math.min(BINS - 1, Math.max(0, Math.floor((value - lo) / hist.w)));
  const option = {
    animation: false,
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    grid: { left: 50, right: 20, top: 40, bottom: 40 },
    xAxis: { type: 'category', data: hist.labels, name: t('result.score'), nameLocation: 'middle', nameGap: 28 },
    yAxis: { type: 'value', name: t('threshold.counts') },
    series: [
      { name: 'OK', type: 'bar', stack: 'a', data: hist.ok, itemStyle: { color: '#43a047' }, markLine: { symbol: 'none', data: [{ xAxis: markX }], lineStyle: { color: '#d32f2f', width: 2 }, label: { formatter: fmt(value, 4) } } },
      { name: 'NG', type: 'bar', stack: 'a', data: hist.ng, itemStyle: { color: '#e53935' } },
    ],
  };
  return (
    <Box sx={{ maxWidth: 1100 }}>
      <PageHeader title={`${t('threshold.title')} · ${data.project.name} · ${key}`} subtitle={t('threshold.help')} />
      {data.threshold !== null && data.threshold_rule && (
        <Alert severity="info" sx={{ mb: 2 }} data-testid="threshold-rule">
          {t('threshold.chosen', { t: fmt(data.threshold, 4), rule: data.threshold_rule })}
        </Alert>
      )}
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
        <Box sx={{ display: 'flex', gap: 2, alignItems: 'center', flexWrap: 'wrap' }}>
          <Typography>{t('threshold.split')}</Typography>
          <ToggleButtonGroup size="small" exclusive value={split} onChange={(_, v) => v && setSplit(v)}>
            <ToggleButton value="validation">{t('threshold.validation')}</ToggleButton>
            <ToggleButton value="test">{t('threshold.test')}</ToggleButton>
          </ToggleButtonGroup>
          <Typography variant="body2" color="text.secondary">
            {t('threshold.okCount', { n: r.ok })} · {t('threshold.ngCount', { n: r.ng })}
          </Typography>
        </Box>
        <EChart option={option} height={280} ariaLabel={t('threshold.title')} />
        <Box sx={{ px: 2 }}>
          <Slider
            aria-label={t('threshold.value')}
            min={lo}
            max={hi}
            step={(hi - lo) / 500 || 0.001}
            value={value}
            onChange={(_, v) => setValue(v as number)}
            valueLabelDisplay="auto"
            valueLabelFormat={(v) => fmt(v, 4)}
          />
        </Box>
        <Box sx={{ display: 'flex', gap: 4, flexWrap: 'wrap', alignItems: 'center' }}>
          <Typography data-testid="threshold-value">
            {t('threshold.value')}: <b>{fmt(value, 4)}</b>
          </Typography>
          <Typography data-testid="miss-rate">
            {t('metric.miss_rate')}: <b>{pct(r.miss_rate)}</b>
          </Typography>
          <Typography data-testid="over-rate">
            {t('metric.over_detection_rate')}: <b>{pct(r.over_detection_rate)}</b>
          </Typography>
          <Button variant="contained" onClick={() => apply({ threshold: value })}>
            {t('threshold.save')}
          </Button>
        </Box>
        {!r.ng && <Alert severity="info" sx={{ mt: 1 }}>{t('threshold.okOnly')}</Alert>}
      </Paper>
      {/* The fields are as wide as their labels: a number-sized field cut '目標見逃し率' to '目標見…' (issue 33). */}
      <Paper variant="outlined" sx={{ p: 2, display: 'flex', gap: 2, flexWrap: 'wrap', alignItems: 'center' }}>
        <TextField size="small" type="number" sx={{ minWidth: 200 }} label={t('threshold.targetMiss')} value={target} onChange={(e) => setTarget(e.target.value)} slotProps={{ htmlInput: { step: 0.01, min: 0, max: 1 } }} />
        <Button variant="outlined" onClick={() => apply({ target_miss_rate: Number(target) })}>
          {t('threshold.fromMiss')}
        </Button>
        <TextField size="small" type="number" sx={{ minWidth: 200 }} label={t('threshold.percentile')} value={perc} onChange={(e) => setPerc(e.target.value)} slotProps={{ htmlInput: { step: 0.5, min: 0, max: 100 } }} />
        <Button variant="outlined" onClick={() => apply({ ok_percentile: Number(perc) })}>
          {t('threshold.fromPercentile')}
        </Button>
      </Paper>
    </Box>
  );
}
