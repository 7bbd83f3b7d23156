/**
 * ECharts, imported modularly: only the chart kinds and components the app draws are registered,
 * which keeps the chunk small. An area that needs another chart kind registers it here.
 */
import { BarChart, CustomChart } from 'echarts/charts';
import { GridComponent, TooltipComponent, TitleComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';

echarts.use([BarChart, CustomChart, GridComponent, TooltipComponent, TitleComponent, SVGRenderer]);

export { echarts };
export type { EChartsCoreOption } from 'echarts/core';
