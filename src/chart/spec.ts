/**
 * A report chart as data. The study's sections build these from the rows; two renderers draw them: the
 * static SVG of report.md (svg-chart.ts) and, in report.html, the explorer's Observable Plot code
 * (src/web/client/charts.ts), which reads them from JSON embedded in the page. Plain JSON values only.
 */

export type AxisScale = 'linear' | 'log';

export interface ChartAxis {
  /** the axis title, with its unit, e.g. "flood rate (× L per window)" */
  title: string;
  scale?: AxisScale;
  /** forces the domain to include this value */
  min?: number;
  max?: number;
}

export interface ChartPoint {
  x: number;
  y: number;
}

/** How one series is drawn; without it, the chart's kind decides (a line chart: line and dots; a scatter: dots). */
export type SeriesMark = 'line' | 'dot' | 'line+dot';

export interface ChartSeries {
  name: string;
  points: readonly ChartPoint[];
  /** index into the palette/marker/dash cycle; defaults to the series' position, pass it to keep a colour per design across charts */
  style?: number;
  mark?: SeriesMark;
  /** series of one group share a colour and one legend entry in report.html (e.g. a fit and its points) */
  group?: string;
}

export interface ReferenceLine {
  /** a horizontal line at this y */
  y: number;
  label: string;
}

export interface ChartSpec {
  title: string;
  x: ChartAxis;
  y: ChartAxis;
  series: readonly ChartSeries[];
  referenceLines?: readonly ReferenceLine[];
  /** in SVG user units; the chart scales to its container through the viewBox */
  width?: number;
  height?: number;
}

export type ChartKind = 'line' | 'scatter';

/** One chart of the report: its file name under charts/ (report.md) and placeholder (report.html), kind and data. */
export interface ReportChart {
  name: string;
  kind: ChartKind;
  spec: ChartSpec;
}

/** What a series draws: its own mark if it names one, else what the chart's kind draws. */
export function seriesMark(kind: ChartKind, s: Pick<ChartSeries, 'mark'>): SeriesMark {
  return s.mark ?? (kind === 'line' ? 'line+dot' : 'dot');
}

/** A chart drawn as lines through the points (and a dot at each). */
export function asLine(spec: ChartSpec): Omit<ReportChart, 'name'> {
  return { kind: 'line', spec };
}

/** A chart of points only. */
export function asScatter(spec: ChartSpec): Omit<ReportChart, 'name'> {
  return { kind: 'scatter', spec };
}
