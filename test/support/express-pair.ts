/**
 * Two Express instances of one API, each with its own started AsyncGateway, on one real
 * redis-server: the fleet the express-rate-limit refund and reset tests run
 * (test/http/{refunds,reset-key,reset-all}.live.test.ts). Registers the file's hooks: the server
 * starts before the file's tests, and each test's instances and gateways stop after it.
 */
import { createServer, type Server } from 'node:http';
import type express from 'express';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { DesignId } from '../../src/config.js';
import { type AsyncGateway, createAsyncGateway } from '../../src/gateway/runtime/index.js';
import type { RedisStore } from '../../src/store/redis/index.js';
import { close, listen } from './http.js';
import { type SingleFixture, singleServer, uniquePrefix } from './redis-fixtures.js';

export interface ExpressPair {
  /**
   * Two started gateways of `design` (ids `<id>-0`, `<id>-1`), L per minute, on one prefix, each
   * synced now and its decision clock no longer ahead of Redis's (see clockCaughtUp), their timed
   * syncs a window away (none lands mid-test); and a store on the same prefix to read Redis with.
   */
  fleet(design: DesignId, limit: number, id: string): Promise<{ gws: AsyncGateway[]; store: RedisStore }>;
  /** Serves the app on 127.0.0.1; returns its base URL. */
  serve(app: express.Express): Promise<string>;
  /** The admits Redis counts for `key` under gw's policy, read as a gateway of its own would. */
  counted(store: RedisStore, gw: AsyncGateway, key: string): Promise<number>;
}

export function expressPairOnRedis(): ExpressPair {
  let fx: SingleFixture;
  let admin: Redis;
  const servers: Server[] = [];
  const gateways: AsyncGateway[] = [];
  let reads = 0;
  beforeAll(async () => {
    fx = await singleServer();
    admin = fx.client();
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map(close));
    await Promise.all(gateways.splice(0).map((g) => g.stop()));
  });
  afterAll(async () => {
    await fx?.close();
  });
  return {
    async fleet(design, limit, id) {
      const prefix = uniquePrefix();
      const gws: AsyncGateway[] = [];
      for (let i = 0; i < 2; i++) {
        const gw = createAsyncGateway({
          id: `${id}-${i}`,
          design,
          limit,
          windowMs: 60_000,
          gateways: 2,
          syncMs: 60_000,
          store: fx.store({ prefix }),
          // the first timed sync at the end of its interval: none lands mid-test
          random: () => 0.999,
        });
        gw.start();
        for (let tries = 0; tries < 50 && !(await gw.syncNow()); tries++)
          await new Promise((r) => setTimeout(r, 20));
        await clockCaughtUp(gw, admin);
        gws.push(gw);
        gateways.push(gw);
      }
      return { gws, store: fx.store({ prefix }) };
    },
    async serve(app) {
      const server = createServer(app);
      servers.push(server);
      return listen(server);
    },
    async counted(store, gw, key) {
      const r = await store.sync(
        {
          gatewayId: 'reader',
          seq: ++reads,
          policy: gw.options.policy,
          leaseTtlMs: 1_000,
          horizonMs: 1_000,
          entries: [{ key, admits: [], read: true, release: false, ask: 0 }],
        },
        0,
      );
      return r.replies[0].count;
    },
  };
}

/** Redis TIME in whole ms, as the scripts read it. */
async function redisNow(admin: Redis): Promise<number> {
  const [sec, usec] = await admin.time();
  return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
}

/**
 * Returns once the gateway's decision time, read before a Redis TIME, is not after it (by more than
 * the millisecond Redis's whole-ms TIME drops). Its first sync's round trip (on a fresh server, Redis
 * compiling every script before it; on a loaded machine, tens of ms) can set its clock up to half that
 * trip ahead of Redis's, and its decision time then stands still there until real time catches up
 * (docs/decisions/0007), though later replies correct the offset. A reset lands at Redis's now and
 * keeps admits stamped after it (0014): admits made in that lead outlived a resetKey made right after
 * them (reset-key's leases-ask case counted 3 of gateway 0's admits left, beside a busy loop). Each
 * try syncs once more (a fresh offset sample) and waits out the lead.
 */
async function clockCaughtUp(gw: AsyncGateway, admin: Redis): Promise<void> {
  for (const until = Date.now() + 10_000; ; ) {
    const lead = gw.now() - (await redisNow(admin)) - 1;
    if (lead <= 0) return;
    if (Date.now() > until)
      throw new Error(`gateway ${gw.options.id}: its clock stayed ${lead} ms ahead of Redis's`);
    await gw.syncNow();
    await new Promise((r) => setTimeout(r, Math.min(lead, 50)));
  }
}
