// `npm run build` runs this after tsc: the explorer page goes to dist/web/public, the study report's chart
// script to dist/web/report-charts.js.
import { buildExplorer, buildReportCharts, builtPageDir, builtReportChartsFile } from './bundle.js';

await buildExplorer(builtPageDir());
buildReportCharts(builtReportChartsFile());
