// Live: the built command in a child process (the bin, as a team would run it).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ensureFreshBuild } from '../support/fresh-build.js';

const BIN = 'dist/cli/main.js';
const LOGS = ['docs/examples/replay/gw0.jsonl', 'docs/examples/replay/gw1.jsonl'];

describe('fleetlimit replay, built', () => {
  it('replays the example logs end to end; a bad flag exits 2 naming it', () => {
    ensureFreshBuild(process.cwd(), BIN);
    const ok = spawnSync(
      'node',
      [
        BIN,
        'replay',
        ...LOGS,
        '--format',
        'json',
        '--key',
        'field:key',
        '--limit',
        '20/1m',
        '--design',
        'adaptive-early',
        '--json',
      ],
      {
        encoding: 'utf8',
      },
    );
    expect(ok.status).toBe(0);
    const r = JSON.parse(ok.stdout);
    expect(r).toMatchObject({ arrivals: 3037, floodArrivals: 0, settings: { gateways: 2, limit: 20 } });
    expect(r.designs[0].design).toBe('adaptive-early');
    const bad = spawnSync('node', [BIN, 'replay', ...LOGS, '--limit', '20/1m', '--sync', 'soon'], {
      encoding: 'utf8',
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^fleetlimit: --sync: expected a duration/);
  }, 120_000);
});
