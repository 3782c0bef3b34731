import type { Command } from 'commander';
import { DESIGN_IDS, type DesignId } from '../config.js';
import { READS_MODES } from '../gateway/options.js';
import { replayText } from '../replay/report/text.js';
import { replayJson, writeReplayOutputs } from '../replay/report/write.js';
import { type AttackSpec, parseAttack } from '../replay/run/attack.js';
import { runReplay } from '../replay/run/pipeline.js';
import type { ReplaySettings } from '../replay/run/result.js';
import { addLogFlags, type LogFlags, logOpener } from './log-flags.js';
import { addOptions, type OptionRow, REPEATABLE } from './option-table.js';
import { limitPerWindow, num, oneOf, seconds, UsageError } from './parse.js';

export interface ReplayFlags extends LogFlags {
  limit?: string;
  gateways?: string;
  sync: string;
  design: string[];
  seed: string;
  json?: boolean;
  out?: string;
  attack: string[];
  top: string;
  reads?: string;
}

export interface ReplayPlan {
  files: string[];
  settings: ReplaySettings;
  attacks: AttackSpec[];
  json: boolean;
  out?: string;
}

/** --design, repeatable: ids or `all` (every design), each once, in the order given. */
function designsOf(raw: readonly string[]): DesignId[] {
  if (raw.length === 0 || raw.includes('all')) return [...DESIGN_IDS];
  return [...new Set(raw.map((d) => oneOf('--design', d, [...DESIGN_IDS, 'all']) as DesignId))];
}

/** Flags → what to replay, with errors that name the flag. */
export function replayPlan(files: string[], f: ReplayFlags): ReplayPlan {
  if (files.length === 0) throw new UsageError('<file>', 'give at least one log file');
  if (f.limit === undefined)
    throw new UsageError('--limit', 'required: the limit to replay, e.g. --limit 20/1m (L per window W)');
  const { limit, windowS } = limitPerWindow(f.limit, undefined, 60);
  const syncS = seconds('--sync', f.sync);
  if (syncS > windowS)
    throw new UsageError('--sync', `must not exceed the window (${windowS} s), got ${syncS} s`);
  // each file is one gateway's log unless --route spreads arrivals over K
  const gateways = num('--gateways', f.gateways ?? String(files.length), { integer: true, min: 1, max: 64 });
  if (f.route === undefined && gateways < files.length)
    throw new UsageError(
      '--gateways',
      `${gateways} is fewer than the ${files.length} files (one gateway per file)`,
    );
  const attacks = f.attack.map((raw) => {
    try {
      return parseAttack(raw);
    } catch (err) {
      throw new UsageError('--attack', (err as Error).message);
    }
  });
  // set only away from the default, as sim's --reads: a default replay's settings are as before
  const reads = oneOf('--reads', f.reads ?? 'every-sync', READS_MODES);
  return {
    files,
    settings: {
      designs: designsOf(f.design),
      gateways,
      limit,
      windowMs: windowS * 1000,
      syncMs: syncS * 1000,
      seed: num('--seed', f.seed, { integer: true, min: 0 }),
      top: num('--top', f.top, { integer: true, min: 1, max: 1000 }),
      ...(reads === 'every-sync' ? {} : { reads }),
    },
    attacks,
    json: f.json === true,
    ...(f.out === undefined ? {} : { out: f.out }),
  };
}

/** The command line that made a report, for its "how this was made" section. */
function commandLine(files: string[], f: ReplayFlags): string {
  const q = (s: string) => (/^[\w./:@+%=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const parts = ['fleetlimit', 'replay', ...files];
  for (const [flag, v] of [
    ['--format', f.format],
    ['--key', f.key],
    ['--limit', f.limit],
    ['--gateways', f.gateways],
    ['--sync', f.sync],
    ['--route', f.route],
    ['--spread', f.spread],
    ['--seed', f.seed],
    ['--reads', f.reads],
  ] as const)
    if (v !== undefined) parts.push(flag, v);
  for (const d of f.design) parts.push('--design', d);
  for (const a of f.attack) parts.push('--attack', a);
  if (f.out !== undefined) parts.push('--out', f.out);
  return parts.map(q).join(' ');
}

/** replay's own options (the log flags follow them: addLogFlags), in the order --help lists them. */
const REPLAY_OPTIONS: readonly OptionRow[] = [
  ['--limit <L/W>', 'the limit: L admits per window W, e.g. 20/1m (required)'],
  ['--gateways <K>', 'gateways sharing the limit (default: one per file)'],
  ['--sync <duration>', 'sync interval Δ: 250ms, 1s…', '1s'],
  [
    '--design <id>',
    `a design to compare, repeatable, or all (default): ${DESIGN_IDS.join(', ')}`,
    REPEATABLE,
  ],
  ['--seed <s>', 'seeds the sync phases, the spread and the attacks', '1'],
  ['--top <N>', 'keys in each "most affected" list', '10'],
  [
    '--attack <RATEx@KEY@TIME>',
    'overlay a flood of RATE × L on KEY from TIME (ISO or +10m), repeatable',
    REPEATABLE,
  ],
  [
    '--reads <mode>',
    'when a quiet key is read: every-sync (default) or on-request (GatewayOptions.reads; the lazy synced designs read it only after a request)',
  ],
  ['--json', 'print one JSON object'],
  ['--out <dir>', 'write replay.json, designs.csv, keys.csv, report.md and report.html (with timelines)'],
];

export function addReplayCommand(program: Command): void {
  const cmd = addOptions(
    program
      .command('replay')
      .description('replay access logs through every design and compare each with the central log')
      .argument('<file...>', 'access logs, one per gateway (or one log routed with --route)'),
    REPLAY_OPTIONS,
  );
  addLogFlags(cmd).action(async (files: string[], f: ReplayFlags) => {
    const plan = replayPlan(files, f);
    const open = logOpener(plan.files, f, plan.settings.gateways, plan.settings.seed);
    const result = await runReplay(open, plan.settings, {
      attacks: plan.attacks,
      timelineKeys: plan.out === undefined ? 0 : 4,
    });
    process.stdout.write(plan.json ? replayJson(result) : replayText(result));
    if (plan.out !== undefined) {
      const path = writeReplayOutputs(plan.out, result, commandLine(files, f));
      (plan.json ? process.stderr : process.stdout).write(`report: ${path}\n`);
    }
  });
}
