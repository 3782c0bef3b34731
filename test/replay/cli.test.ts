import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DESIGN_COLUMNS } from '../../src/replay/report/csv.js';
import { parseCsv } from '../../src/report/csv.js';
import { runFleetlimit as runCli } from '../support/run-cli.js';
import { randomArrivals } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'replay-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.parse('2026-03-01T12:00:00Z');
/** JSON lines with the key in field `key` (the time in `time`, the readers' default). */
const JSON_FLAGS = ['--format', 'json', '--key', 'field:key'];
// two gateways' logs: 4,000 requests on 6 keys over ~13 minutes, every 50th recorded as a 429
const all = randomArrivals(9, 4000, { keys: 6, gateways: 2, perSec: 5, t0: T0 });
let logged429 = 0;
const files = [0, 1].map((g) => {
  const file = join(dir, `g${g}.jsonl`);
  const lines = all
    .filter((a) => a.gateway === g)
    .map((a, i) => {
      if (i % 50 === 0) logged429++;
      return JSON.stringify({ time: a.t, key: a.key, status: i % 50 === 0 ? 429 : 200 });
    });
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
});

describe('fleetlimit replay', () => {
  it('prints the designs against the central log and what the log knows', async () => {
    const { out } = await runCli([
      'replay',
      ...files,
      ...JSON_FLAGS,
      '--limit',
      '20/1m',
      '--design',
      'split',
      '--design',
      'leases',
    ]);
    expect(out).toMatch(/K = 2, Δ = 1 s, L = 20 per 60 s, seed 1; 4,000 arrivals \(0 flood\) on 6 keys/);
    expect(out).toMatch(/^central-log +4,000 /m);
    expect(out).toMatch(/^split +4,000 /m);
    expect(out).toMatch(/^leases +4,000 /m);
    expect(out).not.toMatch(/^shared-counter/m);
    expect(logged429).toBe(81);
    expect(out).toMatch(
      /your limiter rejected 81 of 4,000 logged requests \(status 429\); the central log would have rejected [\d,]+/,
    );
  });

  it('--json: one object with the designs, the central log, the most affected keys and the read stats', async () => {
    const { out } = await runCli([
      'replay',
      ...files,
      ...JSON_FLAGS,
      '--limit',
      '20/1m',
      '--json',
      '--attack',
      '50x@k1@+5m',
    ]);
    const r = JSON.parse(out);
    expect(r.settings).toMatchObject({ gateways: 2, limit: 20, windowMs: 60_000, syncMs: 1000, seed: 1 });
    expect(r.designs.map((d: { design: string }) => d.design)).toHaveLength(9);
    expect(r.central.design).toBe('central-log');
    expect(r.arrivals).toBe(4000 + r.floodArrivals);
    expect(r.floodArrivals).toBeGreaterThan(1000);
    expect(r.logRejected).toBe(logged429);
    expect(r.read).toMatchObject({ arrivals: 4000, malformed: 0 });
    for (const d of r.designs)
      for (const k of [
        'requests',
        'admitted',
        'rejected',
        'honestRejected',
        'overAdmitted',
        'worstWindow',
        'storeCallsPerSec',
      ])
        expect(typeof d[k]).toBe('number');
    // the flood lands on k1: the designs without a hard bound let some of it past L there
    const shared = r.top.find((t: { design: string }) => t.design === 'shared-counter');
    expect(shared.byOverAdmitted[0].key).toBe('k1');
    // central-log through its fleet: no honest rejection, never over L
    expect(r.designs[0]).toMatchObject({
      design: 'central-log',
      honestRejected: 0,
      overAdmitted: 0,
      worstWindow: 1,
    });
  });

  it('--out DIR: JSON, CSVs and an HTML page with the worst keys’ timelines', async () => {
    const out = join(dir, 'out');
    const { out: text } = await runCli([
      'replay',
      ...files,
      ...JSON_FLAGS,
      '--limit',
      '20/1m',
      '--design',
      'shared-counter',
      '--attack',
      '50x@k1@+5m',
      '--out',
      out,
    ]);
    expect(text).toMatch(/report: .*report\.html/);
    const json = JSON.parse(readFileSync(join(out, 'replay.json'), 'utf8'));
    expect(json.timelines.length).toBeGreaterThan(0);
    const tl = json.timelines[0];
    expect(tl.designs.map((d: { design: string }) => d.design)).toEqual(['central-log', 'shared-counter']);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(sum(tl.requests)).toBeGreaterThan(0);
    for (const d of tl.designs) {
      // every request of the key lands in one bucket, admitted or rejected, under every design
      expect(sum(d.admitted) + sum(d.rejected)).toBe(sum(tl.requests));
      expect(sum(d.admitted)).toBeGreaterThan(0);
    }
    // the central log's admits of the key, bucket by bucket, never top L in a bucket shorter than W
    expect(tl.bucketMs).toBeLessThanOrEqual(60_000);
    expect(Math.max(...tl.designs[0].admitted)).toBeLessThanOrEqual(20);
    const csv = parseCsv(readFileSync(join(out, 'designs.csv'), 'utf8'));
    expect(csv[0]).toEqual([...DESIGN_COLUMNS]);
    expect(csv.slice(1).map((r) => r[0])).toEqual(['central-log', 'shared-counter']);
    expect(parseCsv(readFileSync(join(out, 'keys.csv'), 'utf8'))[0]).toEqual([
      'design',
      'ranking',
      'key',
      'requests',
      'floodRequests',
      'honestRejected',
      'overAdmitted',
      'worstWindow',
    ]);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<section id="timelines">');
    expect(html).toContain('data-chart="timeline-1-admitted"');
    expect(html).toContain(`${tl.key}: admitted per`);
    expect(html).toContain('fleetlimit replay');
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('charts/timeline-1-admitted.svg');
  });

  it.each([
    [['--limit', '20/1m', '--design', 'central'], /--design: must be one of/],
    [['--limit', 'twenty'], /--limit: expected a number/],
    [[], /--limit: required/],
    [['--limit', '20/1m', '--sync', '2m'], /--sync: must not exceed the window/],
    [['--limit', '20/1m', '--gateways', '1'], /--gateways: 1 is fewer than the 2 files/],
    [['--limit', '20/1m', '--gateways', '0'], /--gateways: must be at least 1/],
    [['--limit', '20/1m', '--spread', 'wide'], /--spread: must be one of none, uniform/],
    [['--limit', '20/1m', '--attack', '100x@k1'], /--attack: expected RATEx@KEY@TIME/],
    [['--limit', '20/1m', '--seed', '-1'], /--seed: must be at least 0/],
    [['--limit', '20/1m', '--format', 'nginx'], /--format: must be one of combined, common, json, envoy/],
    [['--limit', '20/1m', '--route', 'sideways'], /--route: must be one of round-robin, hash, random/],
    [['--limit', '20/1m', '--key', 'header:x-api-key+'], /--key: header:x-api-key\+: an empty part/],
    [['--limit', '20/1m', '--time-unit', 'days'], /--time-unit: must be one of/],
    [['--limit', '20/1m', '--reorder-window', 'soon'], /--reorder-window: expected a duration/],
    [['--limit', '20/1m', '--reads', 'lazy'], /--reads: must be one of every-sync, on-request; got "lazy"/],
  ])('%j is a clear error naming the flag', async (flags, message) => {
    await expect(runCli(['replay', ...files, ...JSON_FLAGS, ...flags])).rejects.toThrow(message);
  });

  it('--reads on-request reaches the gateways: fewer key-syncs for shared-counter, said in the settings', async () => {
    // 300 quiet keys over two gateways' logs: each seen about once a minute, far from L
    const quiet = randomArrivals(10, 3000, { keys: 300, gateways: 2, perSec: 5, t0: T0 });
    const logs = [0, 1].map((g) => {
      const file = join(dir, `quiet-g${g}.jsonl`);
      const lines = quiet
        .filter((a) => a.gateway === g)
        .map((a) => JSON.stringify({ time: a.t, key: a.key }));
      writeFileSync(file, `${lines.join('\n')}\n`);
      return file;
    });
    const run = async (more: string[]) =>
      JSON.parse(
        (
          await runCli([
            'replay',
            ...logs,
            ...JSON_FLAGS,
            '--limit',
            '20/1m',
            '--design',
            'shared-counter',
            '--json',
            ...more,
          ])
        ).out,
      );
    const [every, explicit, onRequest] = [
      await run([]),
      await run(['--reads', 'every-sync']),
      await run(['--reads', 'on-request']),
    ];
    expect(every.settings).not.toHaveProperty('reads');
    expect(explicit).toEqual(every);
    expect(onRequest.settings.reads).toBe('on-request');
    expect(onRequest.designs[0].keySyncs).toBeLessThan(every.designs[0].keySyncs / 2);
    expect(onRequest.designs[0].storeCalls).toBe(every.designs[0].storeCalls);
  });

  it('one file over two gateways needs a route: an error naming --gateways', async () => {
    await expect(
      runCli(['replay', files[0], ...JSON_FLAGS, '--limit', '5/1m', '--gateways', '2']),
    ).rejects.toThrow(/--gateways: one file split over 2 gateways needs a route/);
  });

  it('reads NGINX combined logs, keyed by address, one file routed over two gateways', async () => {
    const file = join(dir, 'access.log');
    const lines = all.slice(0, 600).map((a, i) => {
      const d = new Date(a.t);
      const stamp = `${String(d.getUTCDate()).padStart(2, '0')}/Mar/2026:${d.toISOString().slice(11, 19)} +0000`;
      return `10.0.0.${(i % 3) + 1} - - [${stamp}] "GET /items/${a.key} HTTP/1.1" 200 12 "-" "curl/8"`;
    });
    writeFileSync(file, `${lines.join('\n')}\nnot a log line\n`);
    const { out } = await runCli([
      'replay',
      file,
      '--limit',
      '20/1m',
      '--gateways',
      '2',
      '--route',
      'hash',
      '--design',
      'split',
      '--json',
    ]);
    const r = JSON.parse(out);
    expect(r.read).toMatchObject({ arrivals: 600, malformed: 1 });
    expect(r.read.firstMalformed[0].line).toBe(601);
    expect(r.keys).toBe(3);
  });
});
