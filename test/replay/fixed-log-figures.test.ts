/**
 * The replay's figures on fixed logs, every design, frozen from the code before the speed work of issue
 * 33 (readers and engine made faster must decide, count and rank exactly as before). Two logs: two
 * gateways' combined logs with lines out of order (some behind the reorder window) and junk, replayed
 * as written; one JSON log split round-robin over three gateways, spread uniformly, under an attack,
 * with timelines. The digest covers the whole result (top keys, timelines, read stats); the table
 * names the headline numbers so a change shows where.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESIGN_IDS } from '../../src/config.js';
import type { Arrival } from '../../src/replay/arrival.js';
import { openArrivals } from '../../src/replay/parse/index.js';
import { writeLog } from '../../src/replay/parse/write-log.js';
import { parseAttack } from '../../src/replay/run/attack.js';
import { runReplay } from '../../src/replay/run/pipeline.js';
import type { ReplayResult } from '../../src/replay/run/result.js';
import { Random } from '../../src/sim/random.js';

const T0 = Date.UTC(2026, 2, 1, 12, 0, 0);

/** n arrivals over `keys` keys (skewed), ~perSec a second, every 40th up to 5 s behind, every 997th 90 s behind. */
function* logArrivals(seed: number, n: number, keys: number, perSec: number): Generator<Arrival> {
  const rng = new Random(seed);
  let t = T0;
  for (let i = 0; i < n; i++) {
    t += rng.exponential(perSec / 1000);
    const u = rng.uniform();
    const behind = i % 997 === 0 ? 90_000 : i % 40 === 0 ? Math.floor(rng.uniform() * 5000) : 0;
    yield {
      t: Math.floor(t) - behind,
      key: `10.1.${Math.floor(u * u * keys) >> 8}.${Math.floor(u * u * keys) & 255}`,
      gateway: 0,
      status: rng.uniform() < 0.04 ? 429 : 200,
    };
  }
}

/** The numbers of one design's row, in a fixed order. */
function row(r: ReplayResult, design: string): (number | string)[] {
  const d = design === 'central' ? r.central : r.designs.find((x) => x.design === design)!;
  return [
    d.requests,
    d.admitted,
    d.honestRejected,
    d.overAdmitted,
    d.keysOverLimit,
    d.worstWindow,
    d.worstKey,
    d.storeCalls,
  ];
}

/** The whole result's digest, the files named without the temporary directory. */
function digest(r: ReplayResult): string {
  const read = r.read && {
    ...r.read,
    files: r.read.files.map((f) => basename(f)),
    firstMalformed: r.read.firstMalformed.map((m) => ({ ...m, file: basename(m.file) })),
  };
  // keySyncs came after the freeze (replay --reads): left out here, so the frozen digest still holds
  // exactly what it held before
  const old = (d: ReplayResult['central']) => {
    const { keySyncs: _k, keySyncsPerSec: _s, ...rest } = d;
    return rest;
  };
  return createHash('sha256')
    .update(JSON.stringify({ ...r, central: old(r.central), designs: r.designs.map(old), read }))
    .digest('hex')
    .slice(0, 16);
}

/** The readers' stats, files by name. */
function head(r: ReplayResult) {
  const { files: _, firstMalformed, ...counts } = r.read!;
  return {
    read: { ...counts, firstMalformed: firstMalformed.map((m) => ({ ...m, file: basename(m.file) })) },
    keys: r.keys,
    peak: r.peakLiveKeys,
    log: r.logRejected,
  };
}

let dir = '';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetlimit-fixed-log-'));
  await writeLog(join(dir, 'gw0.log'), logArrivals(1, 3_000, 100, 20), {
    format: 'combined',
    tzOffsetMinutes: 60,
  });
  await writeLog(join(dir, 'gw1.log'), logArrivals(2, 3_000, 100, 20), {
    format: 'combined',
    tzOffsetMinutes: -300,
  });
  appendFileSync(join(dir, 'gw1.log'), 'not a log line\n10.0.0.1 - - [bad] "GET / HTTP/1.1" 200 1\n');
  await writeLog(join(dir, 'all.jsonl'), logArrivals(3, 6_000, 80, 30), { format: 'json', jsonTime: 'ms' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('replay figures on fixed logs, every design, as before the speed work', () => {
  it('two gateways’ combined logs, as written', async () => {
    const files = [join(dir, 'gw0.log'), join(dir, 'gw1.log')];
    const r = await runReplay(
      () => openArrivals(files, { format: 'combined' }),
      { designs: DESIGN_IDS, gateways: 2, limit: 20, windowMs: 60_000, syncMs: 1000, seed: 5, top: 5 },
      { attacks: [], timelineKeys: 0 },
    );
    const table = Object.fromEntries(['central', ...DESIGN_IDS].map((d) => [d, row(r, d)]));
    expect(head(r)).toEqual(EXPECTED_A.head);
    expect(table).toEqual(EXPECTED_A.table);
    expect(digest(r)).toBe(EXPECTED_A.digest);
  });

  it('one JSON log routed round-robin over three gateways, spread, under attack, with timelines', async () => {
    const file = join(dir, 'all.jsonl');
    const r = await runReplay(
      () =>
        openArrivals([file], {
          format: 'json',
          gateways: 3,
          route: 'round-robin',
          spread: 'uniform',
          seed: 9,
        }),
      { designs: DESIGN_IDS, gateways: 3, limit: 30, windowMs: 60_000, syncMs: 500, seed: 9, top: 5 },
      { attacks: [parseAttack('50x@10.1.0.7@+2m')], timelineKeys: 4 },
    );
    const table = Object.fromEntries(['central', ...DESIGN_IDS].map((d) => [d, row(r, d)]));
    expect(head(r)).toEqual(EXPECTED_B.head);
    expect(table).toEqual(EXPECTED_B.table);
    expect(digest(r)).toBe(EXPECTED_B.digest);
  });
});

// frozen from the code before the speed work (commit 222a46d); a row: requests, admitted, honest
// rejections, over-admissions, keys over L, worst window (× L), its key, store calls
const EXPECTED_A = {
  head: {
    read: {
      lines: 6002,
      arrivals: 6000,
      malformed: 2,
      reordered: 133,
      late: 6,
      firstMalformed: [
        { file: 'gw1.log', line: 3001, text: 'not a log line', reason: 'missing fields' },
        {
          file: 'gw1.log',
          line: 3002,
          text: '10.0.0.1 - - [bad] "GET / HTTP/1.1" 200 1',
          reason: 'bad date',
        },
      ],
    },
    keys: 102,
    peak: 100,
    log: 232,
  },
  table: {
    central: [6000, 4108, 0, 0, 0, 1, '10.1.0.0', 6000],
    'central-log': [6000, 4108, 0, 0, 0, 1, '10.1.0.0', 6000],
    split: [6000, 3909, 463, 0, 0, 1, '10.1.0.0', 0],
    'shared-counter': [6000, 4136, 73, 114, 41, 1.15, '10.1.0.0', 480],
    'assume-others': [6000, 4124, 95, 89, 39, 1.05, '10.1.0.0', 480],
    'track-share': [6000, 4130, 85, 101, 40, 1.1, '10.1.0.1', 480],
    leases: [6000, 3816, 646, 0, 0, 1, '10.1.0.0', 480],
    'leases-ask': [6000, 4087, 121, 0, 0, 1, '10.1.0.0', 5104],
    adaptive: [6000, 4123, 110, 73, 37, 1.05, '10.1.0.1', 480],
    'adaptive-early': [6000, 4080, 183, 49, 30, 1.05, '10.1.0.0', 768],
  },
  digest: '784c6a8ef880bc3f',
};
const EXPECTED_B = {
  head: {
    read: { lines: 6000, arrivals: 6000, malformed: 0, reordered: 149, late: 6, firstMalformed: [] },
    keys: 81,
    peak: 80,
    log: 259,
  },
  table: {
    central: [10279, 4811, 0, 0, 0, 1, '10.1.0.0', 10279],
    'central-log': [10279, 4811, 0, 0, 0, 1, '10.1.0.0', 10279],
    split: [10279, 4640, 367, 0, 0, 1, '10.1.0.0', 0],
    'shared-counter': [10279, 4832, 44, 115, 16, 1.3, '10.1.0.7', 1719],
    'assume-others': [10279, 4824, 61, 87, 14, 1.1666666666666667, '10.1.0.7', 1719],
    'track-share': [10279, 4828, 54, 89, 15, 1.2333333333333334, '10.1.0.7', 1719],
    leases: [10279, 4527, 481, 0, 0, 1, '10.1.0.0', 1719],
    'leases-ask': [10279, 4801, 83, 0, 0, 1, '10.1.0.0', 8004],
    adaptive: [10279, 4816, 55, 59, 15, 1.2333333333333334, '10.1.0.7', 1719],
    'adaptive-early': [10279, 4812, 60, 46, 14, 1.0666666666666667, '10.1.0.0', 2643],
  },
  digest: '723e7126c951c877',
};
