/**
 * The diagnosis in words: each finding as sentences built from its numbers, with a command to run where one
 * helps. Returns lines: the first says why, the rest what would; a command stands on its own line.
 */
import { adviseCommand } from './command.js';
import {
  type Finding,
  type LimitFloor,
  type LimitSteps,
  type Near,
  ROOM,
  type TargetFlag,
} from './diagnose.js';
import { formatPct, formatSeconds, setting } from './format.js';
import type { AdviceInput } from './types.js';

/** A flag's figure as the table prints it. */
function figure(flag: TargetFlag, v: number): string {
  if (flag === '--max-over') return `a worst window of ${v.toFixed(3)} × L`;
  if (flag === '--max-mean') return `a mean of ${v.toFixed(3)} × L per window`;
  if (flag === '--max-round-trips') return `${formatPct(v)} of honest requests`;
  return formatPct(v);
}

function target(flag: TargetFlag, t: number): string {
  return flag === '--max-over' || flag === '--max-mean' ? `${flag} ${t}` : `${flag} ${t}%`;
}

/** The loosest value of a flag a setting at `v` would meet, rounded up to what the table shows. */
function loosened(flag: TargetFlag, v: number): string {
  if (flag === '--max-over' || flag === '--max-mean') return `${flag} ${Math.ceil(v * 1000 - 1e-6) / 1000}`;
  const digits = v > 0 && v < 0.1 ? 3 : 2;
  return `${flag} ${Math.ceil(v * 10 ** digits - 1e-6) / 10 ** digits}%`;
}

const at = (n: Near, flag: TargetFlag) => `${setting(n)} at ${figure(flag, n.value)}`;

function perWindow(l: LimitFloor): string {
  return `${l.limit} per ${formatSeconds(l.windowS)}`;
}

/** "70 per 7 min: B(70, 56) = 0.97 %" */
function floor(l: LimitFloor, erlangs: number): string {
  return `${perWindow(l)}: B(${l.limit}, ${+erlangs.toPrecision(6)}) = ${formatPct(l.floorPct)}`;
}

function designsOf(ns: readonly Near[]): string {
  return [...new Set(ns.map((n) => n.design))].join(', ');
}

const INDENT = '    ';

function lossFloor(input: AdviceInput, f: Extract<Finding, { kind: 'loss-floor' }>): string[] {
  const load = `${+(input.honestLoad * 100).toFixed(4)} %`;
  const erlangs = input.honestLoad * input.limit;
  const here: LimitFloor = { limit: input.limit, windowS: input.windowS, floorPct: f.floorPct };
  const out = [
    `${target(f.flag, f.target)} is below the loss of a limit of ${input.limit}: a steady client at ${load} of ` +
      `${perWindow(here)} arrives to find all ${input.limit} slots taken ${formatPct(f.floorPct)} of the time ` +
      `(Erlang B(${input.limit}, ${+erlangs.toPrecision(6)})), and no design that holds the limit does better than ` +
      `the exact log${f.centralLog === null ? '' : ` (the central log rejected ${formatPct(f.centralLog)} here)`}.` +
      (f.nearest === null
        ? ''
        : ` The fewest rejections within the other targets: ${at(f.nearest, f.flag)}.`),
  ];
  const option = (what: string, s: LimitSteps, erlangsAt: (l: LimitFloor) => number, run: AdviceInput) => [
    `${what}: first possible at ${floor(s.meets, erlangsAt(s.meets))} (${floor(s.before, erlangsAt(s.before))}); ` +
      `with room for the designs' own losses and seed scatter (floor ≤ ${ROOM * 100} % of the target), ` +
      `${floor(s.room, erlangsAt(s.room))}:`,
    INDENT + adviseCommand(run),
  ];
  if (f.longerWindow === null && f.largerLimit === null) {
    out.push(`What would: no L up to the search's bound brings the floor under ${f.target} %.`);
    return out;
  }
  if (f.longerWindow !== null) {
    const r = f.longerWindow.room;
    out.push(
      ...option(
        'What would: a larger L per window at the same rate (a longer W)',
        f.longerWindow,
        (l) => input.honestLoad * l.limit,
        { ...input, limit: r.limit, windowS: r.windowS },
      ),
    );
  }
  if (f.largerLimit !== null) {
    const r = f.largerLimit.room;
    out.push(
      ...option(
        `${f.longerWindow === null ? 'What would' : 'Or'}: a larger L for the same client (${+erlangs.toPrecision(6)} per ${formatSeconds(input.windowS)}), more headroom`,
        f.largerLimit,
        () => erlangs,
        { ...input, limit: r.limit, honestLoad: erlangs / r.limit },
      ),
    );
  }
  return out;
}

export function explainFinding(input: AdviceInput, f: Finding): string[] {
  switch (f.kind) {
    case 'loss-floor':
      return lossFloor(input, f);
    case 'out-of-reach': {
      const also =
        f.alsoMisses.length === 0
          ? ''
          : `, which also misses ${f.alsoMisses.map((m) => `${m.flag} (${figure(m.flag, m.value)})`).join(' and ')}`;
      const out = [
        `${target(f.flag, f.target)} is out of reach of every setting tried; the nearest ` +
          `${f.withinOthers ? 'within the other targets ' : ''}is ${at(f.nearest, f.flag)}${also}.`,
      ];
      if (f.shorterDelta !== null)
        out.push(
          `It is worse at a longer Δ (${at(f.shorterDelta.next, f.flag)}), so a Δ shorter than any tried may get ` +
            `closer: try --deltas ${+(f.shorterDelta.tryS * 1000).toPrecision(6)}ms.`,
        );
      if (f.untried.length > 0) {
        const one = f.untried.length === 1;
        out.push(
          `${f.untried.join(', ')} ${one ? 'meets' : 'meet'} it by construction ` +
            `(${f.flag === '--max-round-trips' ? 'no store call on the request path' : 'never more than L in a window'}) ` +
            `but ${one ? 'was' : 'were'} not tried:`,
          INDENT + adviseCommand({ ...input, designs: [...input.designs, ...f.untried] }),
        );
      }
      return out;
    }
    case 'trade-off': {
      const n = f.meetOthers.length;
      return [
        `${target(f.flag, f.target)} excludes ${n === 1 ? 'the one setting' : `all ${n} settings`} that meet ` +
          `${f.others.join(' and ')} (${designsOf(f.meetOthers)}): the nearest is ${at(f.nearest, f.flag)}, ` +
          `which ${loosened(f.flag, f.nearest.value)} would admit.`,
      ];
    }
  }
}
