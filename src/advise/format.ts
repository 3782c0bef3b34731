import type { AdviceInput, AdviceRow } from './types.js';

/** "100 ms", "1 s", "2.5 min": Δ and W as an operator writes them. */
export function formatSeconds(s: number): string {
  if (s < 1) return `${+(s * 1000).toPrecision(6)} ms`;
  if (s < 60 || s % 60 !== 0) return `${+s.toPrecision(6)} s`;
  return `${s / 60} min`;
}

/** Three significant figures, with thousands separators above 1,000. */
export function formatRate(x: number): string {
  if (x === 0) return '0';
  if (x >= 1000) return Math.round(x).toLocaleString('en-US');
  return String(+x.toPrecision(3));
}

export function formatPct(x: number): string {
  return `${x < 0.1 && x > 0 ? x.toFixed(3) : x.toFixed(2)} %`;
}

export function setting(r: Pick<AdviceRow, 'design' | 'syncS'>): string {
  return r.syncS === null ? `${r.design} (never syncs)` : `${r.design} with Δ = ${formatSeconds(r.syncS)}`;
}

function ops(r: AdviceRow): string {
  const { syncsPerSec, requestPathPerSec } = r.storeOps;
  return `${formatRate(r.storeOpsPerSec)} per second per key (${formatRate(syncsPerSec)} syncs + ${formatRate(requestPathPerSec)} request-path round trips)`;
}

/** One sentence: the recommendation and why, or why there is none. */
export function reasonSentence(input: AdviceInput, ranked: AdviceRow[], all: AdviceRow[]): string {
  const best = ranked[0];
  if (best !== undefined) {
    const bounds =
      (input.maxWorst === undefined
        ? ''
        : `worst window ${best.worstWindow.toFixed(3)} × L ≤ ${input.maxWorst}, `) +
      (input.maxMean === undefined ? '' : `mean ${best.floodMultiple.toFixed(3)} × L ≤ ${input.maxMean}, `);
    const extra =
      input.maxRoundTripsPct === undefined
        ? ''
        : `, round trips ${formatPct(100 * best.roundTripsPerRequest)} of honest requests`;
    const others = ranked.length - 1;
    const tie =
      ranked[1] !== undefined && Math.abs(ranked[1].storeOpsPerSec - best.storeOpsPerSec) < 1e-9
        ? `; ${setting(ranked[1])} costs the store as little but ${
            ranked[1].worstWindow > best.worstWindow
              ? `lets more of the flood through in its worst window (${ranked[1].worstWindow.toFixed(3)} × L)`
              : ranked[1].floodMultiple > best.floodMultiple
                ? `lets more of the flood through on the mean (${ranked[1].floodMultiple.toFixed(3)} × L)`
                : 'rejects more honest requests'
          }`
        : '';
    return (
      `Use ${setting(best)}: it meets every target (${bounds}` +
      `honest rejection ${formatPct(best.honestRejectedPct)} ≤ ${input.maxRejectedPct} %${extra}) with the fewest ` +
      `store operations of the ${others + 1} setting${others === 0 ? '' : 's'} that do, ${ops(best)}${tie}.`
    );
  }
  const by = (f: (r: AdviceRow) => number, rows: AdviceRow[]) =>
    rows.reduce<AdviceRow | undefined>((a, r) => (a === undefined || f(r) < f(a) ? r : a), undefined);
  const lowWorst = by((r) => r.worstWindow, all);
  const lowRej = by((r) => r.honestRejectedPct, all);
  const floodFlags = ['--max-over', '--max-mean'];
  const floodOk = all.filter((r) => !r.misses.some((m) => floodFlags.includes(m)));
  const lowRejFloodOk = by((r) => r.honestRejectedPct, floodOk);
  const within = [
    ...(input.maxWorst === undefined ? [] : [`--max-over ${input.maxWorst}`]),
    ...(input.maxMean === undefined ? [] : [`--max-mean ${input.maxMean}`]),
  ].join(' and ');
  const parts = [
    lowWorst && `the lowest worst window is ${lowWorst.worstWindow.toFixed(3)} × L (${setting(lowWorst)})`,
    lowRej && `the lowest honest rejection is ${formatPct(lowRej.honestRejectedPct)} (${setting(lowRej)})`,
    lowRejFloodOk &&
      within !== '' &&
      `among settings within ${within} it is ${formatPct(lowRejFloodOk.honestRejectedPct)} (${setting(lowRejFloodOk)})`,
  ].filter((p): p is string => typeof p === 'string' && p !== '');
  return `Nothing meets every target: ${parts.join('; ')}.`;
}

/** The ranked rows as an aligned text table. */
export function formatTable(rows: AdviceRow[]): string {
  const head = [
    '#',
    'design',
    'Δ',
    'worst ×L',
    'mean ×L',
    'honest rejected',
    'RT/request',
    'store ops/s/key',
    '= syncs/s',
    '+ request path/s',
  ];
  const body = rows.map((r, i) => [
    String(i + 1),
    r.design,
    r.syncS === null ? '—' : formatSeconds(r.syncS),
    r.worstWindow.toFixed(3),
    r.floodMultiple.toFixed(3),
    formatPct(r.honestRejectedPct),
    r.roundTripsPerRequest.toFixed(3),
    formatRate(r.storeOpsPerSec),
    formatRate(r.storeOps.syncsPerSec),
    formatRate(r.storeOps.requestPathPerSec),
  ]);
  const table = [head, ...body];
  const widths = head.map((_, c) => Math.max(...table.map((row) => [...row[c]].length)));
  // text columns flush left, numbers flush right
  const left = new Set([1, 2]);
  return table
    .map((row) =>
      row
        .map((cell, c) => {
          const pad = ' '.repeat(widths[c] - [...cell].length);
          return left.has(c) ? cell + pad : pad + cell;
        })
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** What the table's columns mean, for the text output. */
export const COLUMN_NOTES = [
  'worst ×L: most admitted in any W-long span under the attack, × L, the max over seeds (--max-over bounds it);',
  'mean ×L: mean admitted per window W under the attack, × L, the mean over seeds (--max-mean bounds it).',
  'honest rejected: share of the honest client’s requests rejected; RT/request: store round trips on its request path.',
  'store ops/s/key: store calls per second for one attacked key = K/Δ syncs (every gateway exchanges the key once per Δ;',
  'none for central-log and split; measured for a design that also syncs early) + request-path round trips per request',
  '× the attack’s request rate.',
].join('\n');

/** The figure a missed flag is judged on, for the summary of misses: its name, number format and unit. */
const MISSED_FIGURE: Record<
  string,
  { of: (r: AdviceRow) => number; name: string; unit: string; digits: number }
> = {
  '--max-over': { of: (r) => r.worstWindow, name: 'worst window', unit: ' × L', digits: 3 },
  '--max-mean': { of: (r) => r.floodMultiple, name: 'mean', unit: ' × L', digits: 3 },
  '--max-rejected': { of: (r) => r.honestRejectedPct, name: 'honest rejected', unit: ' %', digits: 2 },
  '--max-round-trips': {
    of: (r) => 100 * r.roundTripsPerRequest,
    name: 'round trips',
    unit: ' % of honest requests',
    digits: 2,
  },
};

function range(rows: readonly AdviceRow[], flag: string): string {
  const f = MISSED_FIGURE[flag]!;
  const vs = rows.map(f.of);
  const [lo, hi] = [Math.min(...vs).toFixed(f.digits), Math.max(...vs).toFixed(f.digits)];
  return `${f.name} ${lo === hi ? lo : `${lo}–${hi}`}${f.unit}`;
}

/**
 * One line per design with a missing setting: which targets its settings miss and the range of the figure
 * that misses, so a design left out of the table (adaptive's worst window, say) is seen and explained.
 */
export function missedLines(all: readonly AdviceRow[]): string[] {
  const byDesign = new Map<string, AdviceRow[]>();
  for (const r of all.filter((x) => !x.meetsTargets))
    byDesign.set(r.design, [...(byDesign.get(r.design) ?? []), r]);
  return [...byDesign].map(([design, rows]) => {
    const deltas = rows.map((r) => (r.syncS === null ? 'never syncs' : formatSeconds(r.syncS))).join(', ');
    const flags = [...new Set(rows.flatMap((r) => r.misses))];
    const why = flags.map((flag) => {
      const missing = rows.filter((r) => r.misses.includes(flag));
      // a worst window over the target with a mean within it: the flood's onset, not its steady state
      const mean =
        flag === '--max-over' && !missing.some((r) => r.misses.includes('--max-mean'))
          ? `; its ${range(missing, '--max-mean')}`
          : '';
      return `${flag} (${range(missing, flag)}${mean})`;
    });
    return `${design} (${deltas}) misses ${why.join(' and ')}`;
  });
}
