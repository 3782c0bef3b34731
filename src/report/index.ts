export * from '../util/format.js';
export * from './aggregate.js';
export * from './csv.js';
export * from './document.js';
export * from './escape.js';
export * from './report.js';
export * from './svg-chart.js';
export * from './tables.js';
