import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { RedisStore } from '../../src/store/redis/index.js';
import { gatewayClient, heapMB, ready, sleep } from '../support/fault-fleet.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

/**
 * Issue 6, item 8: an attacker sending a stream of distinct keys. The gateway's key cap (maxKeys)
 * bounds its memory; every Redis key carries an expiry; a real key's decisions are those of a twin
 * gateway that sees no attack. npm test streams 1 M keys (FLEETLIMIT_ATTACK_KEYS to change it);
 * ten million, about two minutes: FLEETLIMIT_ATTACK_KEYS=10000000 npx vitest run test/faults/attacker-keys.test.ts
 */

const N = Number(process.env.FLEETLIMIT_ATTACK_KEYS ?? 1_000_000);
const CAP = 10_000;
/** Attacker keys per second at the one gateway: far above what one gateway process can parse from HTTP. */
const RATE = 100_000;
const L = 50;
const W = 4000;

let server: RedisServer;
const clients: Redis[] = [];
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await server?.stop();
});

async function gateway(id: string, prefix: string, maxKeys?: number): Promise<AsyncGateway> {
  const c = await ready(gatewayClient(server.url, 1000));
  clients.push(c);
  return createAsyncGateway({
    id,
    design: 'shared-counter',
    limit: L,
    windowMs: W,
    gateways: 1, // K = 1: decisions are exactly the central log's, so the twin must agree
    syncMs: 200,
    // a sync of a full key cap (~20 µs of Redis time per key) must fit in the timeout, or it never succeeds
    storeTimeoutMs: 1000,
    store: new RedisStore(c, { prefix }),
    ...(maxKeys === undefined ? {} : { maxKeys }),
  });
}

describe('faults: ten million distinct attacker keys', () => {
  it(
    `${N.toLocaleString('en')} distinct keys through one gateway: memory under the key cap, every Redis key expires, a real key unaffected`,
    async () => {
      const gw = await gateway('attacked', 'atk:', CAP);
      const twin = await gateway('twin', 'twin:');
      // the first sync brings Redis's clock: decisions before it would wait for it
      await Promise.all([gw.syncNow(), twin.syncNow()]);
      gw.start();
      twin.start();
      const heap0 = heapMB();
      const started = Date.now();
      let sent = 0;
      let attackAdmitted = 0;
      let maxKeysHeld = 0;
      let degraded = false;
      let heapPeak = heap0;
      const real = { attacked: 0, twin: 0, requests: 0, mismatches: 0 };
      // bounded in count and time: N keys, at most 1.5 × N / RATE + 10 s
      const maxMs = (1.5 * N * 1000) / RATE + 10_000;
      while (sent < N && Date.now() - started < maxMs) {
        for (let i = 0; i < 5000 && sent < N; i++, sent++) {
          const d = gw.admitNow(`atk:${sent}`);
          if (!(d instanceof Promise) && d.allowed) attackAdmitted++;
        }
        // the real user: one request per chunk, to both gateways at the same instant
        const a = gw.admitNow('real-user');
        const b = twin.admitNow('real-user');
        if (a instanceof Promise || b instanceof Promise) throw new Error('shared-counter never waits');
        real.requests++;
        if (a.allowed) real.attacked++;
        if (b.allowed) real.twin++;
        if (a.allowed !== b.allowed) real.mismatches++;
        maxKeysHeld = Math.max(maxKeysHeld, gw.keyCount);
        degraded ||= gw.stats().storeDown;
        if (sent % 200_000 === 0) heapPeak = Math.max(heapPeak, heapMB());
        const due = started + (sent * 1000) / RATE;
        if (Date.now() < due) await sleep(due - Date.now());
        else await new Promise((r) => setImmediate(r));
      }
      const elapsed = Date.now() - started;
      heapPeak = Math.max(heapPeak, heapMB());
      const hot = gw.limiterFor('real-user');
      const stats = gw.stats();
      await gw.stop();
      await twin.stop();
      // every key in Redis expires: scan them all
      const admin = await ready(gatewayClient(server.url));
      clients.push(admin);
      let keys = 0;
      let noExpiry = 0;
      let cursor = '0';
      do {
        const [next, batch] = await admin.scan(cursor, 'COUNT', 5000);
        cursor = next;
        if (batch.length > 0) {
          const p = admin.pipeline();
          for (const k of batch) p.pttl(k);
          for (const [, ttl] of (await p.exec()) ?? []) if (ttl === -1) noExpiry++; // -2: it expired between SCAN and PTTL
          keys += batch.length;
        }
      } while (cursor !== '0');
      console.log(
        `${sent.toLocaleString('en')} distinct keys (${RATE.toLocaleString('en')}/s) in ${(elapsed / 1000).toFixed(1)} s through a gateway capped at ${CAP.toLocaleString('en')} keys: ` +
          `held at most ${maxKeysHeld.toLocaleString('en')}, heap ${heap0.toFixed(1)} → peak ${heapPeak.toFixed(1)} MB (+${(heapPeak - heap0).toFixed(1)} MB); ` +
          `${stats.evictions.toLocaleString('en')} evicted, ${stats.keyCapRejections.toLocaleString('en')} new keys refused at the cap, ${attackAdmitted.toLocaleString('en')} attacker requests admitted; ` +
          `store ${degraded ? 'was' : 'never'} seen down; ${keys.toLocaleString('en')} Redis keys, ${noExpiry} without an expiry; ` +
          `real key: ${real.attacked} admitted vs ${real.twin} on the unattacked twin of ${real.requests} requests, ${real.mismatches} decisions differ`,
      );
      expect(sent).toBe(N);
      expect(maxKeysHeld).toBeLessThanOrEqual(CAP);
      // the cap bounds memory: well under what N keys would take (≈ 400 B each held)
      expect(heapPeak - heap0).toBeLessThan(60);
      expect(noExpiry).toBe(0);
      // the hot key is never the least recently used: unless the gateway went on its fail mode (its
      // state then lives in the outage record, and its idle limiter may go), it still holds its state
      if (!degraded) expect(hot).toBeDefined();
      // the same count as its unattacked twin; which of its requests get through can shift with a
      // sync's timing (the attack's big syncs take longer), so single decisions are printed, not bounded.
      // A sync that carries the attack's keys takes several Δ: with the expiry horizon fixed at 4Δ its
      // reply came back after the last one's horizon, and the real key, counting admits it could not
      // see expire, rejected up to 8 of 138 more than the twin. The horizon now grows with the sync
      // cycle, sized from the first sync on: 0–2 fewer on a quiet box, up to 5 with other tests
      // running alongside (a sync slower than twice the last ones still lands late). It never admits more.
      if (!degraded) {
        expect(real.attacked - real.twin).toBeLessThanOrEqual(2);
        expect(real.twin - real.attacked).toBeLessThanOrEqual(2 + Math.ceil(real.twin / 25));
      }
      // on a loaded box the attack's big syncs can time out: the real key then runs on the fail mode
      // (local, K = 1: up to L per window from the outage record), no further from the twin than L
      else expect(Math.abs(real.attacked - real.twin)).toBeLessThanOrEqual(L);
      await sleep(10);
    },
    90_000 + (1.5 * N * 1000) / RATE,
  );
});
