import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DesignId } from '../../src/config.js';
import type { Decision } from '../../src/gateway/decision.js';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { Random } from '../../src/sim/random.js';
import { RedisStore } from '../../src/store/redis/index.js';
import { TestAsyncStore } from '../support/async-memory-store.js';
import { worstWindow } from '../support/fault-fleet.js';
import { useRedisServer } from '../support/redis-per-file.js';

/**
 * Issue 6, item 7: one gateway's clock 5 s fast, another's 5 s slow, the third right (the runtime's
 * `clock` option). A store with its own clock (Redis TIME: RedisStore's default) makes the runtime
 * decide on local time + the offset it learns at each sync, so the skew is taken out after the first
 * reply (a decision that comes before it waits for it).
 *
 * What a skew left in would do: a gateway whose decision clock is e ms off stamps its admits e ms early
 * or late, and on a sliding window W an admit then counts e ms too short (or long): at most e/W of a
 * window's admits more, L·(1 + e/W) in the worst window, and with e = 5 s > W = 2 s nothing is
 * bounded at all. What is left after the offset is learned: e ≤ the round trip's asymmetry / 2 + the
 * clock's 1 ms tick (the runtime's offsetErrorMs bounds it). So:
 * - on a real redis-server, each skewed gateway's decision clock is Redis TIME within offsetErrorMs
 *   (plus the test's own read of TIME, measured);
 * - on a store with its own clock and a symmetric round trip, in fake time, e = 0: the skewed fleet must
 *   decide exactly as an unskewed twin (same arrivals, same sync phases), decision by decision. The
 *   bound on the synced designs' excess over their twin is then 0 %, not a spread measured in real time.
 */

const L = 50;
const W = 2000;
const K = 3;
const SYNC = 100;
const RUN_MS = 7000;
const RATE = (5 * L) / (W / 1000); // a 5× flood
/** A loopback round trip, split evenly both ways by TestAsyncStore: the offset sample is exact. */
const RTT_MS = 2;
const T0 = 1_000_000;

const SKEWS = [5000, -5000, 0];

describe('faults: clock skew ±5 s on a real redis-server', () => {
  const redis = useRedisServer();

  it('a skewed gateway learns Redis TIME at its first sync: its decision clock is TIME within its offsetErrorMs', async () => {
    const admin = await redis.gatewayClient();
    const lines: string[] = [];
    // the skewed ones: a gateway on the store's own clock may get a reply whose TIME equals the time it
    // sent to the ms, which the runtime takes for a store echoing its time and learns nothing from
    for (const skew of SKEWS.filter((s) => s !== 0)) {
      const c = await redis.gatewayClient();
      const gw = createAsyncGateway({
        id: `skew${skew}`,
        design: 'shared-counter',
        limit: L,
        windowMs: W,
        gateways: K,
        syncMs: SYNC,
        store: new RedisStore(c, { prefix: `skew${skew}:` }),
        clock: () => Date.now() + skew,
      });
      // before any reply a decision waits for the store's clock
      expect(gw.admitNow('k')).toBeInstanceOf(Promise);
      expect(await gw.syncNow()).toBe(true);
      // TIME was read at some instant between a and b (local); gw.now() at c is the store's time at c
      // within offsetErrorMs; the store's time at c is TIME + at most c − a; both count whole ms
      const a = performance.now();
      const [sec, usec] = await admin.time();
      const b = performance.now();
      const g = gw.now();
      const c1 = performance.now();
      const time = Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
      const err = gw.stats().offsetErrorMs;
      lines.push(
        `skew ${skew} ms: offset learned ${gw.stats().offsetMs.toFixed(1)} ms ± ${err.toFixed(1)}; decision clock − TIME = ${g - time} ms (TIME read took ${(b - a).toFixed(1)} ms)`,
      );
      expect(err).toBeGreaterThanOrEqual(1);
      expect(g).toBeGreaterThanOrEqual(time - err - 1);
      expect(g).toBeLessThanOrEqual(time + (c1 - a) + err + 1);
      await gw.stop();
    }
    console.log(`clock skew on Redis TIME:\n${lines.join('\n')}`);
  });
});

describe('faults: clock skew ±5 s, every design, a store on its own clock (fake time)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  interface Run {
    design: DesignId;
    skewed: boolean;
    gws: AsyncGateway[];
    /** Decision per arrival, in arrival order; null until it resolves. */
    decisions: (Decision | null)[];
    /** Store times of the admits: central-log's as logged at the store, the others' at the decision. */
    admitsAt: number[];
  }

  function fleet(design: DesignId, skewed: boolean): Run {
    const run: Run = { design, skewed, gws: [], decisions: [], admitsAt: [] };
    const store = new TestAsyncStore(undefined, () => Date.now());
    store.delayMs = RTT_MS;
    const logAdmit = store.logAdmit.bind(store);
    store.logAdmit = async (...a) => {
      const r = await logAdmit(...a);
      if (r.allowed) run.admitsAt.push(r.now);
      return r;
    };
    for (const [i, skew] of SKEWS.entries()) {
      // the same sync phases in both fleets of a design, a different one per gateway
      const phase = new Random(900 + i);
      run.gws.push(
        createAsyncGateway({
          id: `${design}-${skewed ? 'skewed' : 'right'}-${i}`,
          design,
          limit: L,
          windowMs: W,
          gateways: K,
          syncMs: SYNC,
          store,
          clock: skewed ? () => Date.now() + skew : () => Date.now(),
          random: () => phase.uniform(),
        }),
      );
    }
    for (const g of run.gws) g.start();
    return run;
  }

  it('every design decides exactly as its unskewed twin, request by request; central-log and the lease designs never pass L in any window', async () => {
    vi.useFakeTimers({ now: T0 });
    const designs: DesignId[] = [
      'central-log',
      'leases',
      'leases-ask',
      'shared-counter',
      'assume-others',
      'track-share',
    ];
    const runs = designs.flatMap((d) => [fleet(d, true), fleet(d, false)]);
    // one seeded Poisson stream of arrivals, each to a seeded gateway, the same for every fleet
    const rng = new Random(700);
    let at = T0 + rng.exponential(RATE / 1000);
    let n = 0;
    const pending: Promise<void>[] = [];
    while (at < T0 + RUN_MS) {
      await vi.advanceTimersByTimeAsync(Math.max(0, Math.ceil(at) - Date.now()));
      const g = Math.floor(rng.uniform() * K);
      const i = n++;
      for (const run of runs) {
        run.decisions.push(null);
        const record = (d: Decision) => {
          run.decisions[i] = d;
          if (d.allowed && run.design !== 'central-log') run.admitsAt.push(Date.now());
        };
        const d = run.gws[g].admitNow('k');
        if (d instanceof Promise) pending.push(d.then(record));
        else record(d);
      }
      at += rng.exponential(RATE / 1000);
    }
    await vi.advanceTimersByTimeAsync(1000);
    await Promise.all(pending);
    const stopped = Promise.all(runs.flatMap((run) => run.gws.map((g) => g.stop())));
    await vi.advanceTimersByTimeAsync(1000);
    await stopped;

    const lines: string[] = [];
    for (let r = 0; r < runs.length; r += 2) {
      const [skewed, right] = [runs[r], runs[r + 1]];
      const allowed = (x: Run) => x.decisions.filter((d) => d?.allowed).length;
      const differ: number[] = [];
      for (let i = 0; i < n; i++)
        if (skewed.decisions[i]?.allowed !== right.decisions[i]?.allowed) differ.push(i);
      const worst = worstWindow(skewed.admitsAt, W);
      lines.push(
        `${skewed.design.padEnd(14)}: skewed ${allowed(skewed)} admitted, unskewed ${allowed(right)}, of ${n}; ${differ.length} decisions differ; worst window ${worst} (skewed), ${worstWindow(right.admitsAt, W)} (unskewed)`,
      );
      expect.soft(skewed.decisions.includes(null), `${skewed.design}: every decision came`).toBe(false);
      expect
        .soft(differ, `${skewed.design}: requests decided differently from the unskewed twin`)
        .toEqual([]);
      if (['central-log', 'leases', 'leases-ask'].includes(skewed.design)) {
        expect.soft(worst, `${skewed.design}: worst window`).toBeLessThanOrEqual(L);
        // and the skew does not stall them (a clock ahead once held the key shut for the skew + W):
        // past the first window, the flood keeps the key at L per W
        expect
          .soft(
            skewed.admitsAt.filter((t) => t >= T0 + W).length,
            `${skewed.design}: admits after the first window`,
          )
          .toBeGreaterThanOrEqual(0.8 * L * ((RUN_MS - W) / W));
      }
    }
    console.log(
      `clock skew +5 s / −5 s / 0 (K=${K}, L=${L}, W=${W / 1000} s, Δ=${SYNC} ms, round trip ${RTT_MS} ms, 5× flood, ${RUN_MS / 1000} s, fake time):\n${lines.join('\n')}`,
    );
  });
});
