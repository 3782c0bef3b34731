/**
 * A command's options as a table: one row per option (flags, help line, default), added in order, the
 * order `--help` lists them. The rows are data, so the commands that share an option share its row.
 */
import type { Command } from 'commander';
import { DESIGN_IDS } from '../config.js';

/** A row's default that makes the option repeatable: each use appends its value to a list (default []). */
export const REPEATABLE = Symbol('repeatable');

/** One option: its flags, its help line and its default (none: a switch, or no default). */
export type OptionRow = readonly [flags: string, help: string, fallback?: string | typeof REPEATABLE];

/** Adds each row's option to `cmd`, in order; returns `cmd` for the chain. */
export function addOptions(cmd: Command, rows: readonly OptionRow[]): Command {
  for (const [flags, help, fallback] of rows) {
    if (fallback === REPEATABLE) cmd.option(flags, help, (v: string, acc: string[]) => [...acc, v], []);
    else cmd.option(flags, help, fallback);
  }
  return cmd;
}

/** `--design`, as `sim` and `fleet` take it. */
export const DESIGN_OPTION: OptionRow = [
  '--design <id>',
  `one of ${DESIGN_IDS.join(', ')}`,
  'shared-counter',
];

/** `--routing`, as `sim` and `fleet` take it. */
export const ROUTING_OPTION: OptionRow = [
  '--routing <kind>',
  'even or uneven (gateway i gets a share ∝ 1/i)',
  'even',
];
