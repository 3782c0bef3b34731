// Replay closes the loop with production on one arrival sequence (issue 33): two NGINX + sidecar pairs
// (the Debian binary, docs/examples/nginx.conf; shared-counter, K = 2, L = 50 per 5 s, Δ = 250 ms) on one
// redis-server take 15 s of keyed traffic (200 requests/s over 20 API keys, Zipf), each NGINX writing its
// own JSON access log; the two logs, read by `fleetlimit replay`'s readers, are decided again by the
// simulator (the mean of 10 seeds' sync phases), and each key's admitted and rejected counts must match
// what the live fleet answered (the logged statuses) within 3 % of the key's requests.
//
// Why W = 5 s: NGINX stamps a line when the response ends ($msec), a few to tens of ms after the
// sidecar decided, more under load. At W = 1 s that moved up to 7 % of a key's decisions across a window
// edge, even for central-log, which is exact; at W = 5 s central-log's replay matched the live fleet
// exactly (0.00 % on every key, RD=central-log in an earlier version of this file) and shared-counter's
// within 0.74 % (worst key), at a load of 7 on 2 cores.
//
// Why two stampings: under more load the end stamp is not close to the decision even at W = 5 s, and
// the log cannot say where between the request's start and its end the sidecar decided. At a load of
// ~9 (two busy loops and another live test beside) $request_time reached p99 380 ms, max 431 ms, and
// the replay of the logs as written was off by 3.08 % of one key's requests (k4: live 149, replay
// 143.8; 6.2 % in a CI run at load 9–13), where the same logs stamped at the request's start ($msec −
// $request_time, as docs/replay.md tells a team to ship them) were within 0.37 %; in another run at
// load 8.6, start 1.60 % and end 1.03 %: neither end is the decision. So each key is replayed both
// ways, and the live count must be within 3 % of the start-stamped replay plus what the two stampings
// differ by on that key (the placement the log leaves open, measured in the same run; 0 on a quiet
// box, where the bound is the 3 % it always was).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Arrival } from '../../src/replay/arrival.js';
import { openArrivals } from '../../src/replay/parse/index.js';
import { replay } from '../../src/replay/run/engine.js';
import { keyedTraffic } from '../support/keyed-traffic.js';
import { type ProxyFleet, startProxyFleet } from '../support/proxy-fleet.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { arraySource } from './support.js';

const K = 2;
const L = 50;
const W = 5000;
const SYNC = 250;
/** Replays per key (each its own sync phases); the live run is compared with their mean. */
const SEEDS = 10;
const DESIGN = 'shared-counter';
const LOG_FORMAT =
  '{"time":"$msec","request_time":"$request_time","api_key":"$http_x_api_key","status":"$status","path":"$uri"}';

/**
 * The logs as a team ships them for replay (docs/replay.md): each line stamped at the request's start,
 * $msec − $request_time (both in seconds, to the ms), into `dir`; returns the new files.
 */
function shipStartStamps(files: string[], dir: string): string[] {
  return files.map((file, i) => {
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => {
        const o = JSON.parse(l) as { time: string; request_time: string };
        const ms = Math.round(Number(o.time) * 1000) - Math.round(Number(o.request_time) * 1000);
        return JSON.stringify({ ...o, time: (ms / 1000).toFixed(3) });
      });
    const out = join(dir, `edge-${i + 1}.json`);
    writeFileSync(out, `${lines.join('\n')}\n`);
    return out;
  });
}

let redis: RedisServer;
let fleet: ProxyFleet;
let shipped: string;
beforeAll(async () => {
  shipped = mkdtempSync(join(tmpdir(), 'fleetlimit-replay-'));
  redis = await startRedisServer();
  fleet = await startProxyFleet({
    redisUrl: redis.url,
    pairs: K,
    prefix: `replay-${Date.now()}:`,
    gateway: { design: DESIGN, limit: L, windowMs: W, gateways: K, syncMs: SYNC },
    // the traffic comes from one address: the per-address limit is set out of its way
    policies: { 'per-ip': { limit: 1_000_000, design: 'shared-counter' } },
    accessLog: LOG_FORMAT,
  });
});
afterAll(async () => {
  await fleet?.stop();
  await redis?.stop();
  if (shipped !== undefined) rmSync(shipped, { recursive: true, force: true });
});

interface KeyFigures {
  requests: number;
  live: number;
  sim: number;
  central: number;
}

/** Reads the logs with `fleetlimit replay`'s readers and replays each key (the mean of SEEDS sync phases). */
async function compare(files: string[]) {
  const source = openArrivals(files, { format: 'json', key: 'field:api_key', spread: 'none' });
  const byKey = new Map<string, Arrival[]>();
  for await (const a of source.arrivals) {
    if (a.key === '') continue; // NGINX's own readiness probe, before the traffic
    let l = byKey.get(a.key);
    if (l === undefined) byKey.set(a.key, (l = []));
    l.push(a);
  }
  const keys = new Map<string, KeyFigures>();
  let otherStatus = 0;
  for (const [key, arrivals] of [...byKey].sort((a, b) => b[1].length - a[1].length)) {
    const live = arrivals.filter((a) => a.status === 200).length;
    otherStatus += arrivals.filter((a) => a.status !== 200 && a.status !== 429).length;
    let sum = 0;
    let central = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = await replay(arraySource(arrivals), {
        designs: [DESIGN],
        gateways: K,
        limit: L,
        windowMs: W,
        syncMs: SYNC,
        seed,
        top: 1,
      });
      sum += r.designs[0].admitted;
      central = arrivals.length - r.centralRejected;
    }
    keys.set(key, { requests: arrivals.length, live, sim: sum / SEEDS, central });
  }
  const logged = [...byKey.values()].reduce((n, l) => n + l.length, 0);
  return { malformed: source.stats().malformed, logged, otherStatus, keys };
}

describe('replay of NGINX access logs against the live fleet that wrote them', () => {
  it('per key, the replay admits and rejects what the live fleet did (within 3 % of its requests)', async () => {
    const sent = await keyedTraffic({
      ports: fleet.nginxPorts,
      ratePerS: 200,
      durationMs: 15_000,
      keys: 20,
      zipf: 1,
      seed: 5,
      header: 'x-api-key',
    });
    const start = await compare(shipStartStamps(fleet.accessLogs, shipped));
    // as NGINX wrote them, stamped at the response's end
    const end = await compare(fleet.accessLogs);
    expect(start.malformed).toBe(0);
    expect(end.malformed).toBe(0);
    expect(start.logged).toBe(sent.sent);
    expect(start.otherStatus).toBe(0);
    const rows: string[] = [];
    let worst = 0;
    let worstOff = 0;
    let liveAdmitted = 0;
    let simAdmitted = 0;
    for (const [key, s] of start.keys) {
      const e = end.keys.get(key)!;
      const off = Math.abs(s.live - s.sim) / s.requests;
      const open = Math.abs(s.sim - e.sim) / s.requests;
      worst = Math.max(worst, off - open);
      worstOff = Math.max(worstOff, off);
      liveAdmitted += s.live;
      simAdmitted += s.sim;
      rows.push(
        `${key}: ${s.requests} requests, live ${s.live} admitted, replay ${s.sim.toFixed(1)} (end-stamped ${e.sim.toFixed(1)}), central ${s.central} (${(100 * off).toFixed(2)} %, stampings differ by ${(100 * open).toFixed(2)} %)`,
      );
    }
    console.log(
      `${start.logged} logged requests; admitted live ${liveAdmitted}, replay ${simAdmitted.toFixed(1)} (stamped at the request's start); ` +
        `worst key off by ${(100 * worstOff).toFixed(2)} % of its requests, ${(100 * worst).toFixed(2)} % past what the stampings differ by\n${rows.join('\n')}`,
    );
    // within 3 % of the key's requests, beyond the placement the log leaves open (see above)
    expect(worst).toBeLessThanOrEqual(0.03);
  }, 60_000);
});
