import { BarChart, HeatmapChart, LineChart, ScatterChart } from 'echarts/charts';
import { DataZoomComponent, GridComponent, LegendComponent, MarkLineComponent, TooltipComponent, VisualMapComponent } from 'echarts/components';
import { echarts } from '../../charts/echarts';

/** The chart kinds training and prediction reports draw (echarts.use is global and idempotent). */
echarts.use([BarChart, HeatmapChart, LineChart, ScatterChart, DataZoomComponent, GridComponent, LegendComponent, MarkLineComponent, TooltipComponent, VisualMapComponent]);

export const PALETTE = ['#1976d2', '#e65100', '#2e7d32', '#6a1b9a', '#c62828', '#00838f', '#f9a825', '#4e342e', '#37474f', '#ad1457'];
