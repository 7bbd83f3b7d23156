import { LineChart, ScatterChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TitleComponent, TooltipComponent } from 'echarts/components';
import { useTranslation } from 'react-i18next';
import EChart from '../../charts/EChart';
import { echarts } from '../../charts/echarts';
import type { DesignResult, Row } from './api';

echarts.use([LineChart, ScatterChart, GridComponent, LegendComponent, TitleComponent, TooltipComponent]);

const H = Math.sqrt(3) / 2;

/** Barycentric (a, b, c) → the plane: a at the bottom left, b at the bottom right, c at the top. */
export function ternaryXY(a: number, b: number, c: number): [number, number] {
  const s = a + b + c || 1;
  return [(b + c / 2) / s, (H * c) / s];
}

/** Ternary plot of a 3-component mixture: the simplex, earlier runs and the proposed runs. */
export function TernaryPlot({ result, previous }: { result: DesignResult; previous: Row[] }) {
  const { t } = useTranslation('optimalDesign');
  const mix = result.variables.filter((v) => v.type === 'mixture').map((v) => v.name);
  const xy = (r: Row) => ternaryXY(Number(r[mix[0]]), Number(r[mix[1]]), Number(r[mix[2]]));
  const tip = (r: Row) => mix.map((m) => `${m}: ${r[m]}`).join('<br/>');
  const option = {
    animation: false,
    grid: { left: 30, right: 30, top: 30, bottom: 55 },
    xAxis: { type: 'value', min: -0.05, max: 1.05, show: false },
    yAxis: { type: 'value', min: -0.05, max: H + 0.05, show: false },
    legend: { bottom: 0 },
    tooltip: { trigger: 'item', formatter: (p: { data: { tip?: string } }) => p.data?.tip ?? '' },
    series: [
      { type: 'line', data: [[0, 0], [1, 0], [0.5, H], [0, 0]], symbol: 'none', lineStyle: { color: '#888' }, silent: true, tooltip: { show: false } },
      {
        type: 'scatter', symbol: 'circle', symbolSize: 3, itemStyle: { color: '#888' }, silent: true, label: { show: true, color: '#333', fontWeight: 'bold' },
        data: [
          // the bottom corners' names run under the base, inwards from their corner, so no name is cut at the edge
          { value: [0, 0], label: { show: true, formatter: mix[0], position: 'bottom', align: 'left', distance: 8 } },
          { value: [1, 0], label: { show: true, formatter: mix[1], position: 'bottom', align: 'right', distance: 8 } },
          { value: [0.5, H], label: { show: true, formatter: mix[2], position: 'top' } },
        ],
      },
      { name: t('previousRuns'), type: 'scatter', symbol: 'circle', symbolSize: 9, itemStyle: { color: '#9e9e9e' }, data: previous.map((r) => ({ value: xy(r), tip: tip(r) })) },
      { name: t('newRuns'), type: 'scatter', symbol: 'diamond', symbolSize: 12, itemStyle: { color: '#1976d2' }, data: result.runs.map((r, i) => ({ value: xy(r), tip: `#${i + 1}<br/>${tip(r)}` })) },
    ],
  };
  return <EChart option={option} height={420} ariaLabel={t('ternary')} />;
}

/** Pairwise plots of the numeric variables (one small scatter per pair). */
export function PairwisePlots({ result, previous }: { result: DesignResult; previous: Row[] }) {
  const { t } = useTranslation('optimalDesign');
  const names = result.variables.filter((v) => v.type !== 'categorical').map((v) => v.name);
  const pairs: [string, string][] = [];
  for (let i = 0; i < names.length; i++) for (let j = i + 1; j < names.length; j++) pairs.push([names[i], names[j]]);
  return (
    <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(260px, 1fr))', gap: 8 }} aria-label={t('pairwise')}>
      {pairs.slice(0, 28).map(([a, b]) => (
        <EChart
          key={`${a}-${b}`}
          height={240}
          ariaLabel={`${a} × ${b}`}
          option={{
            animation: false,
            grid: { left: 45, right: 10, top: 10, bottom: 40 },
            xAxis: { type: 'value', name: a, nameLocation: 'middle', nameGap: 25, scale: true },
            yAxis: { type: 'value', name: b, nameLocation: 'middle', nameGap: 32, scale: true },
            series: [
              { type: 'scatter', symbolSize: 7, itemStyle: { color: '#9e9e9e' }, data: previous.map((r) => [Number(r[a]), Number(r[b])]) },
              { type: 'scatter', symbol: 'diamond', symbolSize: 10, itemStyle: { color: '#1976d2' }, data: result.runs.map((r) => [Number(r[a]), Number(r[b])]) },
            ],
          }}
        />
      ))}
    </div>
  );
}

/** Fraction-of-design-space plot of the scaled prediction variance. */
export function VarianceProfile({ profile }: { profile: NonNullable<DesignResult['criteria']['variance_profile']> }) {
  const { t } = useTranslation('optimalDesign');
  return (
    <EChart
      height={260}
      ariaLabel={t('profile')}
      option={{
        animation: false,
        grid: { left: 60, right: 20, top: 20, bottom: 45 },
        tooltip: { trigger: 'axis' },
        xAxis: { type: 'value', min: 0, max: 1, name: t('fraction'), nameLocation: 'middle', nameGap: 28 },
        yAxis: { type: 'value', name: t('scaledVariance'), nameLocation: 'middle', nameGap: 42, scale: true },
        series: [{ type: 'line', showSymbol: false, data: profile.fraction.map((f, i) => [f, profile.scaled_variance[i] === null ? null : Number(profile.scaled_variance[i].toFixed(4))]) }],
      }}
    />
  );
}
