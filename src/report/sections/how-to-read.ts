/** How to read the report's figures and charts. */
import type { Section } from '../document.js';

export function howToReadSection(): Section {
  return {
    id: 'how-to-read',
    title: 'How to read this',
    blocks: [
      {
        kind: 'text',
        text:
          'Every figure is the mean over the seeds of one configuration; a ± after it is the standard error of that ' +
          'mean. “Admitted per window” and “worst window” are multiples of the limit L: 1 is exactly the limit, 2 ' +
          'is twice what the key was allowed. “Rejected” is the share of all requests refused. “Round trips per ' +
          'request” counts store calls on the request path (1 for central-log, 0 for designs that decide locally). ' +
          'Charts use log scales where values span decades; a point at zero cannot sit on a log scale, so it is left ' +
          'out and a note under the chart says how many. Each design keeps its colour and marker in every chart ' +
          '(and in the static charts of report.md its dash pattern); in report.html, pointing at a point shows ' +
          'its values. Every run, seed by seed, is in results.csv and results.json.',
      },
    ],
  };
}
