import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesignId, Policy } from '../../src/config.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { Random } from '../../src/sim/random.js';
import type { AsyncStore, SyncRequest, SyncResult } from '../../src/store/contract.js';
import { PassThroughStore } from '../../src/store/pass-through.js';
import { RedisStore } from '../../src/store/redis/index.js';
import {
  drive,
  gatewayClient,
  lagMonitor,
  ready,
  sleep,
  startFleetReady,
  storeCount,
  worstWindow,
} from '../support/fault-fleet.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

/** Issue 6, items 4 and 5: sync replies lost after the store applied the sync; a gateway killed by PID. */

let server: RedisServer;
let admin: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  admin = await ready(gatewayClient(server.url));
});
afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
});

/** Runs every call on the real store, then loses the sync's reply with probability `p` (the write stands). */
class LossyStore extends PassThroughStore<AsyncStore> implements AsyncStore {
  p = 0.3;
  lost = 0;
  private readonly rng: Random;
  constructor(inner: AsyncStore, seed: number) {
    super(inner);
    this.rng = new Random(seed);
  }
  override async sync(req: SyncRequest, now: number): Promise<SyncResult> {
    const r = await this.inner.sync(req, now);
    if (this.rng.uniform() < this.p) {
      this.lost++;
      throw new Error('sync reply lost (test)');
    }
    return r;
  }
}

describe('faults: lost replies and a killed gateway (real redis-server)', () => {
  it('a third of sync replies lost after the write: every retried delta counted once, store count == admitted', async () => {
    const L = 300;
    const W = 60_000;
    const policy: Policy = { limit: L, windowMs: W, windowKind: 'sliding' };
    const lines: string[] = [];
    const designs: DesignId[] = ['shared-counter', 'track-share', 'leases'];
    await Promise.all(
      designs.map(async (design, d) => {
        const prefix = `lost-${design}`;
        const stores: LossyStore[] = [];
        const clients = await Promise.all([0, 1, 2].map(() => ready(gatewayClient(server.url))));
        const gws = clients.map((c, i) => {
          const s = new LossyStore(new RedisStore(c, { prefix: `${prefix}:` }), 10 * d + i);
          stores.push(s);
          return createAsyncGateway({
            id: `${prefix}-${i}`,
            design,
            limit: L,
            windowMs: W,
            gateways: 3,
            syncMs: 100,
            store: s,
          });
        });
        let retries = 0;
        for (const g of gws) g.on('sync', (e) => void (e.retry && retries++));
        for (const g of gws) g.start();
        const r = await drive(gws, 'k', 60, 5000, 500 + d);
        for (const s of stores) s.p = 0;
        await Promise.all(gws.map((g) => g.stop()));
        for (const c of clients) c.disconnect();
        const count = await storeCount(admin, prefix, 'k', policy);
        const lost = stores.reduce((n, s) => n + s.lost, 0);
        lines.push(
          `${design.padEnd(14)}: ${lost} sync replies lost, ${retries} resends answered, ${r.admitted.length} admitted of ${r.requests}, store holds ${count}`,
        );
        expect.soft(lost).toBeGreaterThan(10);
        expect.soft(count).toBe(r.admitted.length);
      }),
    );
    console.log(`lost sync replies (p = 0.3, K = 3, Δ = 100 ms):\n${lines.join('\n')}`);
  }, 30_000);

  it('a leases gateway killed (SIGKILL by PID) holding slots and unsynced admits: its slots come back a window after its lease lapses; every window stays within L', async () => {
    const L = 100;
    const W = 3000;
    const SYNC = 100;
    const TTL = Math.max(3 * SYNC, 1000); // the default lease TTL
    const prefix = 'dead:';
    const childArgs = {
      url: server.url,
      prefix,
      id: 'child',
      design: 'leases',
      limit: L,
      windowMs: W,
      gateways: 3,
      syncMs: SYNC,
      rate: 50,
      key: 'k',
      seconds: 30,
    };
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/support/gateway-child.ts', JSON.stringify(childArgs)],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const childAdmits: number[] = [];
    let syncs = 0;
    let readyResolve: () => void = () => {};
    const childReady = new Promise<void>((r) => {
      readyResolve = r;
    });
    // the child's unsynced admits as it froze, right after an admit (see gateway-child.ts)
    let frozenResolve: (unsynced: number) => void = () => {};
    const childFrozen = new Promise<number>((r) => {
      frozenResolve = r;
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const [kind, a, b] = line.split(' ');
      if (kind === 'READY') readyResolve();
      else if (kind === 'F') frozenResolve(Number(b));
      else if (kind === 'A') {
        childAdmits.push(Number(a));
      } else if (kind === 'S') syncs++;
    });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      await Promise.race([
        childReady,
        sleep(20_000).then(() => Promise.reject(new Error('child did not start'))),
      ]);
      const others = await startFleetReady({
        design: 'leases',
        k: 2,
        limit: L,
        windowMs: W,
        syncMs: SYNC,
        prefix: 'dead',
        url: server.url,
        extra: { gateways: 3 },
      });
      await sleep(1500);
      const meta = new RedisStore(admin, { prefix }).keyNames('k', {
        limit: L,
        windowMs: W,
        windowKind: 'sliding',
      }).meta;
      // kill it right after an admit no sync has carried yet, while it holds a grant: the child freezes
      // at its next admit spent from its grant (so it holds one), before any sync can carry that admit
      // (a kill timed from its output, as this test did, found it synced already on a loaded machine)
      child.stdin!.write('freeze\n');
      const lost = await Promise.race([
        childFrozen,
        sleep(20_000).then(() => Promise.reject(new Error('child did not freeze'))),
      ]);
      const grantBefore = await grantOf(admin, meta, 'child');
      child.kill('SIGKILL');
      const killAt = Date.now();
      const killStore = await storeTime(admin);
      // the others flood the key from the kill on: they meet L while the dead gateway's slots are held
      const othersRun = drive(others.gws, 'k', 100, 5000, 600);
      await exited;
      // poll the store until the dead gateway's grant is no longer counted: it lapses at the TTL,
      // and stays counted a window more (its unsynced admits were spent from it)
      let returnedMs = Number.NaN;
      let returnedStore = Number.NaN;
      let pollMs = 0;
      const lag = lagMonitor();
      for (let i = 0; i < 400 && Number.isNaN(returnedMs); i++) {
        const p0 = performance.now();
        const g = await grantOf(admin, meta, 'child');
        const storeNow = await storeTime(admin);
        pollMs = Math.max(pollMs, performance.now() - p0);
        // '<lapse>:<tag>:<slots>...' (common.lua)
        if (g === null || lapseOf(g) + W <= storeNow) {
          returnedMs = Date.now() - killAt;
          returnedStore = storeNow;
        } else await sleep(POLL_MS);
      }
      const lagMs = lag.stop();
      const r = await othersRun;
      await others.stop();
      others.disconnect();
      const all = [...r.admitted.map((a) => a.wall), ...childAdmits];
      const worst = worstWindow(all, W);
      const othersAfter = r.admitted.filter((a) => a.wall >= killAt + TTL + W).length;
      console.log(
        `killed leases gateway (L=${L}, W=${W / 1000} s, K=3, Δ=${SYNC} ms): grant "${grantBefore}" (lapse:tag:slots) held at the kill, ${lost} admits unsynced; ` +
          `its slots were back ${returnedMs} ms after the kill (TTL ${TTL} ms + W ${W} ms); worst window of all admits ${worst} (L = ${L}); ` +
          `the others admitted ${othersAfter} after TTL + W (${syncs} child syncs)`,
      );
      expect(grantBefore).not.toBeNull();
      expect(lost).toBeGreaterThan(0);
      // Judged on the store's clock, which decides: a grant is only ever renewed, never cut short, so
      // the slots come back no sooner than a window after the lapse it had at the kill; and no later
      // than a window after the last renewal could make it lapse (at the kill, + TTL), plus what the
      // poll adds: its interval, its own two round trips and how late its timer fired
      const lapseBefore = lapseOf(grantBefore!);
      const latest = killStore + TTL + W + POLL_MS + pollMs + lagMs;
      console.log(
        `slots back at store time kill + ${returnedStore - killStore} ms: bounds [lapse at kill + W = kill + ${lapseBefore + W - killStore}, kill + TTL + W + poll ${POLL_MS} + ${pollMs.toFixed(0)} + lag ${lagMs.toFixed(0)} = kill + ${(latest - killStore).toFixed(0)}]`,
      );
      expect(returnedStore).toBeGreaterThanOrEqual(lapseBefore + W);
      expect(returnedStore).toBeLessThanOrEqual(latest);
      // the dead gateway's unpushed admits were spent from its grant, which stays counted while they could count
      expect(worst).toBeLessThanOrEqual(L);
      // the returned slots are used again
      expect(othersAfter).toBeGreaterThan(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 40_000);
});

const POLL_MS = 20;

/** Redis TIME in ms. */
async function storeTime(admin: Redis): Promise<number> {
  const [sec, usec] = await admin.time();
  return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
}

/** The lapse instant (store clock) of a grant record: '<lapse>:<tag>:<slots>...' (common.lua). */
function lapseOf(grant: string): number {
  return Number(grant.split(':')[0]);
}

/** A gateway's grant record on a key (see common.lua): the store knows the gateway by its incarnation, `<id>~<nonce>`. */
async function grantOf(admin: Redis, meta: string, id: string): Promise<string | null> {
  const all = await admin.hgetall(meta);
  for (const [f, v] of Object.entries(all)) if (f.startsWith(`g:${id}~`)) return v;
  return null;
}
