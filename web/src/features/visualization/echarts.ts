/**
 * The chart kinds and components the visualization and pre-processing pages draw, registered on the app's
 * modular ECharts core (echarts.use is global and idempotent). Canvas draws the 50,000-point scatter quickly.
 */
import { BarChart, BoxplotChart, HeatmapChart, LineChart, ScatterChart } from 'echarts/charts';
import { DataZoomComponent, GridComponent, LegendComponent, TitleComponent, ToolboxComponent, TooltipComponent, VisualMapComponent } from 'echarts/components';
import { CanvasRenderer, SVGRenderer } from 'echarts/renderers';
import { echarts } from '../../charts/echarts';

echarts.use([BarChart, BoxplotChart, HeatmapChart, LineChart, ScatterChart, DataZoomComponent, GridComponent, LegendComponent, TitleComponent, ToolboxComponent, TooltipComponent, VisualMapComponent, CanvasRenderer, SVGRenderer]);

export { echarts };
export type { EChartsCoreOption } from 'echarts/core';
