/** The scorecard: every design against every target. */
import type { RunRow } from '../../sim/types.js';
import type { Block, Section } from '../document.js';
import type { Table } from '../tables.js';
import { designsIn, NONE, type SectionHead, sectionOver, tableBlock } from './common.js';
import { judge, SCORECARD_TARGETS, scorecardRuns } from './scorecard-targets.js';

const HEAD: SectionHead = {
  id: 'scorecard',
  title: 'Scorecard: every design against every target (K ∈ {2, 8, 32}, Δ = 1 s)',
  intro:
    'The issue’s targets for a design that beats the seven, each checked on this study’s own runs at K up to 32 ' +
    'and Δ = 1 s (L = 100 per 60 s sliding window). A cell reads PASS or FAIL and the figure that decided it: the ' +
    'worst configuration’s mean over seeds, or, for a worst window, its worst seed (a limit promises every ' +
    'window). Floods: the mean admitted per window over every K and flood rate, spread evenly over the gateways ' +
    'or sent whole to one, and the worst window of the same runs (the most admitted in any window-long span). ' +
    'Onset: a flood of every rate coming on at t = 2W on an empty key and on a busy one (an honest client at ' +
    '80 % for two windows before), spread and sent to one gateway; the figure is the most admitted in a ' +
    'window-long span ending within one window of the onset. Pulsed: a 1,000× flood for 2 s every 120 s on an ' +
    'honest client at 80 % (K = 8 and 32); the client’s rejections against the central log’s at the same K. ' +
    'Honest: the largest excess of a design’s rejections ' +
    'over the central log’s in the same configuration (and the least, which is negative when a design admits ' +
    'more than the exact log, i.e. over-admits). Cost: the share of requests that waited on a store round trip, ' +
    'and store operations per second (syncs + request-path calls) against shared-counter’s in the same ' +
    'configuration. Delay: the change in admitted per window under floods (100×, 1,000×) and in honest rejections ' +
    'when every store call takes 1 or 10 ms more (jitter half of it), at K = 8; the latency the delay adds to ' +
    'request-path calls is charted in “Store delay” below.',
  needs: 'the extended grid (study --grid extended).',
};

export function scorecardSection(all: readonly RunRow[]): Section {
  const sc = all.filter(
    (r) => r.group === 'scorecard' || r.group === 'delay' || r.group === 'onset' || r.group === 'hard',
  );
  return sectionOver(HEAD, sc, (sc) => {
    const designs = designsIn(sc);
    const on = scorecardRuns(all);
    let passAll: string[] = [];
    const table: Table = {
      columns: [{ title: 'design' }, ...SCORECARD_TARGETS.map((t) => ({ title: t.title }))],
      rows: designs.map((d) => {
        let every = true;
        const row = [
          d,
          ...judge(d, on).map(({ verdict: v }) => {
            if (v === null) {
              every = false;
              return NONE;
            }
            if (!v.pass) every = false;
            return `${v.pass ? 'PASS' : 'FAIL'} ${v.figure}`;
          }),
        ];
        if (every) passAll = [...passAll, d];
        return row;
      }),
    };
    const verdict: Block = {
      kind: 'text',
      text:
        passAll.length === 0 ? 'No design meets every target.' : `Meets every target: ${passAll.join(', ')}.`,
    };
    return [tableBlock(table), verdict];
  });
}
