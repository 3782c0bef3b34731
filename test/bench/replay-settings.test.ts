// The replay bench times what `fleetlimit replay` does by default: its read options are the
// command's defaults (--format combined, --spread uniform), so a figure in bench/results/replay.md is
// what a user running the command on such a log gets.
import { Command } from 'commander';
import { expect, it } from 'vitest';
import { benchReadOptions, benchReplaySettings } from '../../bench/replay-settings.mjs';
import { addLogFlags, type LogFlags, readOptions } from '../../src/cli/log-flags.js';

it("the replay bench reads its log with the command's default read options", () => {
  const cmd = addLogFlags(new Command().exitOverride());
  cmd.parse([], { from: 'user' });
  const cli = readOptions(cmd.opts<LogFlags>(), 1, 1);
  const bench = benchReadOptions('combined');
  expect({ format: bench.format, spread: bench.spread, seed: bench.seed }).toEqual({
    format: cli.format,
    spread: cli.spread,
    seed: cli.seed,
  });
});

it('at K > 1 the replay bench splits its log as `--gateways K --route ROUTE` does', () => {
  for (const route of ['hash', 'random', 'round-robin'] as const) {
    const cmd = addLogFlags(new Command().exitOverride());
    cmd.parse(['--route', route], { from: 'user' });
    const cli = readOptions(cmd.opts<LogFlags>(), 4, 1);
    const bench = benchReadOptions('combined', 4, route);
    expect({ gateways: bench.gateways, route: bench.route, spread: bench.spread, seed: bench.seed }).toEqual({
      gateways: cli.gateways,
      route: cli.route,
      spread: cli.spread,
      seed: cli.seed,
    });
  }
  // one gateway: no route, as the command reads one file for one gateway
  expect(benchReadOptions('combined', 1, 'random').route).toBeUndefined();
  expect(benchReplaySettings(['central-log'], 'every-sync', 4).gateways).toBe(4);
});
