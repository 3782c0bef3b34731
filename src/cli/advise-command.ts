import type { Command } from 'commander';
import { advise, adviseOnTraffic } from '../advise/advise.js';
import { explainFinding } from '../advise/explain.js';
import { COLUMN_NOTES, formatSeconds, formatTable, missedLines } from '../advise/format.js';
import { DEFAULT_DELTAS_S, defaultMinutes } from '../advise/plan.js';
import type { TrafficSummary } from '../advise/traffic.js';
import type { AdviceInput } from '../advise/types.js';
import { DESIGN_IDS, type DesignId } from '../config.js';
import { READS_MODES } from '../gateway/options.js';
import { addLogFlags, type LogFlags, logOpener } from './log-flags.js';
import { addOptions, type OptionRow, REPEATABLE } from './option-table.js';
import { durationMs, num, oneOf, UsageError } from './parse.js';
import { progressBar } from './progress.js';

/** With --traffic, the log flags say how to read it (as `fleetlimit replay`'s). */
export interface AdviseFlags extends Partial<LogFlags> {
  gateways: string;
  limit: string;
  attack: string;
  routing: string;
  honestLoad: string;
  maxOver?: string;
  maxMean?: string;
  maxRejected: string;
  maxWorst?: string;
  maxRoundTrips?: string;
  designs?: string;
  deltas?: string;
  floodMinutes?: string;
  honestMinutes?: string;
  seeds: string;
  reads?: string;
  workers?: string;
  json?: boolean;
  /** --traffic, repeatable (commander collects them) */
  traffic?: string[];
}

/** the worst-window target when the user gives none (and no --max-mean either) */
export const DEFAULT_MAX_OVER = 1.2;

/**
 * --max-over (alias --max-worst) bounds the worst window; --max-mean the mean per window. With neither, the worst
 * window is held to DEFAULT_MAX_OVER; with only --max-mean, the worst window is not bounded, so a command
 * written for the mean (the study report's) keeps its meaning.
 */
export function floodTargets(f: Pick<AdviseFlags, 'maxOver' | 'maxWorst' | 'maxMean'>): {
  maxWorst?: number;
  maxMean?: number;
} {
  if (f.maxOver !== undefined && f.maxWorst !== undefined)
    throw new UsageError('--max-worst', 'is another name for --max-over; give one of them');
  const flag = f.maxWorst === undefined ? '--max-over' : '--max-worst';
  const raw = f.maxOver ?? f.maxWorst;
  // an exact design holds a flood to exactly L, so no target below 1 × L can be met
  const maxMean =
    f.maxMean === undefined ? undefined : parseMultiple('--max-mean', f.maxMean, { min: 1, max: 1e6 });
  const maxWorst =
    raw !== undefined
      ? parseMultiple(flag, raw, { min: 1, max: 1e6 })
      : maxMean === undefined
        ? DEFAULT_MAX_OVER
        : undefined;
  return { maxWorst, maxMean };
}

/** "100/1m": L admits per window W. */
export function parseLimit(flag: string, raw: string): { limit: number; windowS: number } {
  const slash = raw.indexOf('/');
  if (slash < 0) throw new UsageError(flag, `expected L/W such as 100/1m, got "${raw}"`);
  const limit = num(flag, raw.slice(0, slash), { integer: true, min: 1 });
  const windowS = durationMs(flag, raw.slice(slash + 1)) / 1000;
  return { limit, windowS };
}

/** "1000x" (or 1000×, or 1000): a multiple of the limit. */
export function parseMultiple(flag: string, raw: string, opts: { min: number; max: number }): number {
  return num(flag, raw.replace(/\s*[x×]\s*$/i, ''), opts);
}

/** "1%" or "1" (both percent). */
export function parsePercent(flag: string, raw: string, opts: { min: number; max: number }): number {
  return num(flag, raw.replace(/\s*%\s*$/, ''), opts);
}

/** Flags → what advise simulates, with errors that name the flag. */
export function adviceInput(f: AdviseFlags): AdviceInput {
  const { limit, windowS } = parseLimit('--limit', f.limit);
  const designs: DesignId[] =
    f.designs === undefined
      ? [...DESIGN_IDS]
      : f.designs.split(',').map((d) => oneOf('--designs', d.trim(), DESIGN_IDS));
  let deltasS: number[];
  if (f.deltas === undefined) {
    deltasS = DEFAULT_DELTAS_S.filter((d) => d <= windowS);
    if (deltasS.length === 0)
      throw new UsageError(
        '--limit',
        `the window ${formatSeconds(windowS)} is shorter than every default Δ; give --deltas`,
      );
  } else {
    deltasS = f.deltas.split(',').map((d) => durationMs('--deltas', d.trim()) / 1000);
    for (const d of deltasS)
      if (d > windowS)
        throw new UsageError(
          '--deltas',
          `Δ = ${formatSeconds(d)} exceeds the window W = ${formatSeconds(windowS)}`,
        );
  }
  const minutes = defaultMinutes(windowS);
  const n = num('--seeds', f.seeds, { integer: true, min: 1, max: 100 });
  const reads = oneOf('--reads', f.reads ?? 'every-sync', READS_MODES);
  return {
    gateways: num('--gateways', f.gateways, { integer: true, min: 1, max: 64 }),
    limit,
    windowS,
    attack: parseMultiple('--attack', f.attack, { min: 1, max: 1e6 }),
    routing: oneOf('--routing', f.routing, ['even', 'uneven'] as const),
    honestLoad: parsePercent('--honest-load', f.honestLoad, { min: 1, max: 100 }) / 100,
    ...floodTargets(f),
    maxRejectedPct: parsePercent('--max-rejected', f.maxRejected, { min: 0, max: 100 }),
    maxRoundTripsPct:
      f.maxRoundTrips === undefined
        ? undefined
        : parsePercent('--max-round-trips', f.maxRoundTrips, { min: 0, max: 100 }),
    designs,
    deltasS,
    floodMinutes:
      f.floodMinutes === undefined
        ? minutes.flood
        : num('--flood-minutes', f.floodMinutes, { positive: true, max: 100_000 }),
    honestMinutes:
      f.honestMinutes === undefined
        ? minutes.honest
        : num('--honest-minutes', f.honestMinutes, { positive: true, max: 100_000 }),
    seeds: Array.from({ length: n }, (_, i) => i + 1),
    ...(reads === 'every-sync' ? {} : { reads }),
  };
}

/** advise's own options (the log flags follow them: addLogFlags), in the order --help lists them. */
const ADVISE_OPTIONS: readonly OptionRow[] = [
  ['--gateways <K>', 'gateways sharing the limit (1–64)', '8'],
  ['--limit <L/W>', 'L admits per sliding window W, e.g. 100/1m or 50/10s', '100/1m'],
  ['--attack <multiple>', "the attacker's rate as a multiple of the limit, e.g. 1000x", '1000x'],
  ['--routing <kind>', "how the honest client's requests spread: even or uneven (gateway i ∝ 1/i)", 'even'],
  ['--honest-load <pct>', "the honest client's steady rate, percent of the limit", '80%'],
  [
    '--max-over <multiple>',
    `most the attack may get in its worst window: most admitted in any W-long span, × L, max over seeds (at least 1; default ${DEFAULT_MAX_OVER} unless only --max-mean is given)`,
  ],
  ['--max-worst <multiple>', 'another name for --max-over'],
  [
    '--max-mean <multiple>',
    'most the attack may get on the mean: mean admitted per window, × L, mean over seeds (default: no bound)',
  ],
  ['--max-rejected <pct>', "most of the honest client's requests that may be rejected, percent", '1%'],
  [
    '--max-round-trips <pct>',
    "most of the honest client's requests that may wait on a store round trip, percent (default: no bound)",
  ],
  ['--designs <list>', `designs to try (default: all of ${DESIGN_IDS.join(', ')})`],
  ['--deltas <list>', 'sync intervals to try, e.g. 100ms,1s,10s (default: 100ms,300ms,1s,3s,10s up to W)'],
  ['--flood-minutes <n>', 'simulated minutes per attack run (default: 20 windows)'],
  ['--honest-minutes <n>', 'simulated minutes per honest run (default: 200 windows)'],
  ['--seeds <n>', 'seeds per setting; metrics are means over them', '2'],
  [
    '--reads <mode>',
    "when a quiet key is read: every-sync (default; the library's) or on-request (the sidecar's default: GatewayOptions.reads)",
  ],
  ['--workers <n>', 'worker threads (default: one per core)'],
  [
    '--traffic <file>',
    'judge honest rejections on your own access log (replayed, one file per gateway, repeatable) instead of a steady client',
    REPEATABLE,
  ],
  ['--json', 'print one JSON object'],
];

export function addAdviseCommand(program: Command): void {
  const cmd = addOptions(
    program
      .command('advise')
      .description(
        'simulate every design at every Δ for your fleet and threat, and recommend one that meets your targets',
      ),
    ADVISE_OPTIONS,
  );
  addLogFlags(cmd).action(async (f: AdviseFlags & LogFlags) => {
    const input = adviceInput(f);
    const workers =
      f.workers === undefined ? undefined : num('--workers', f.workers, { integer: true, min: 0 });
    const traffic = f.traffic ?? [];
    if (traffic.length > input.gateways)
      throw new UsageError(
        '--traffic',
        `${traffic.length} files for ${input.gateways} gateways (one file per gateway)`,
      );
    // opened before any simulation: a bad log flag or file fails at once
    const open = traffic.length > 0 ? logOpener(traffic, f, input.gateways, 1) : null;
    const opts = { workers, onProgress: progressBar('simulating') };
    const advice: Awaited<ReturnType<typeof advise>> & { traffic?: TrafficSummary } =
      open === null ? await advise(input, opts) : await adviseOnTraffic(input, open, opts);
    if (advice.recommendation === null) process.exitCode = 1;
    if (f.json) {
      process.stdout.write(`${JSON.stringify(advice, null, 2)}\n`);
      return;
    }
    const i = input;
    const lines = [
      `K = ${i.gateways} gateways, L = ${i.limit} per ${formatSeconds(i.windowS)} (sliding)${i.reads === 'on-request' ? ', quiet keys read on request' : ''}; attack ${i.attack}× the limit, spread evenly;`,
      advice.traffic !== undefined
        ? `honest traffic replayed from ${traffic.join(', ')}: ${advice.traffic.requests.toLocaleString('en-US')} requests, ` +
          `${advice.traffic.centralRejectedPct.toFixed(3)} % over the limit (the central log rejects them); honest rejected = ` +
          `what the central log admits and the design rejects; ${i.seeds.length} seed(s), ${+i.floodMinutes.toFixed(2)} min per attack run.`
        : `honest client steady at ${+(i.honestLoad * 100).toFixed(4)} % with ${i.routing} routing; ${i.seeds.length} seed(s), ` +
          `${+i.floodMinutes.toFixed(2)} min per attack run, ${+i.honestMinutes.toFixed(2)} min per honest run.`,
      `Targets: worst window ${i.maxWorst === undefined ? 'not bounded' : `≤ ${i.maxWorst} × L`}` +
        `${i.maxMean === undefined ? '' : `, mean per window ≤ ${i.maxMean} × L`}, honest rejection ≤ ${i.maxRejectedPct} %` +
        `${i.maxRoundTripsPct === undefined ? '' : `, round trips ≤ ${i.maxRoundTripsPct} % of honest requests`}.`,
      '',
      ...(advice.smallLimit === null ? [] : [advice.smallLimit, '']),
    ];
    if (advice.ranked.length > 0) {
      lines.push(
        `${advice.ranked.length} of ${advice.all.length} settings meet the targets:`,
        '',
        formatTable(advice.ranked),
        '',
        COLUMN_NOTES,
        advice.ranking,
        '',
      );
    }
    const missed = missedLines(advice.all);
    if (advice.ranked.length > 0 && missed.length > 0)
      lines.push('Settings that miss a target:', ...missed.map((l) => `- ${l}`), '');
    lines.push(advice.reason);
    if (advice.diagnosis.length > 0)
      lines.push(
        '',
        'Why, and what would:',
        ...advice.diagnosis.flatMap((f) =>
          explainFinding(i, f).map((l, n) => `${n === 0 ? '- ' : '  '}${l}`),
        ),
      );
    process.stdout.write(`${lines.join('\n')}\n`);
  });
}
