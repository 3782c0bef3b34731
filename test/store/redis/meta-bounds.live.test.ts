/**
 * The meta hash's count ('a') and bounds on the log's admit times ('o', 'z') let a touch skip reading
 * the log while nothing in it can have aged out (issue 19). These check that the shortcut never
 * decides differently from reading the log: a log lost on its own, bounds lost or loosened, and a
 * key whose oldest admit ages out between syncs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../../src/config.js';
import type { RedisStore } from '../../../src/store/redis/index.js';
import { dropFromMetaRecord, metaRecord } from '../../support/meta-record.js';
import { keySync } from '../../support/one-key-sync.js';
import { type SingleFixture, singleServer } from '../../support/redis-fixtures.js';

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const policy: Policy = { limit: 100, windowMs: 1000, windowKind: 'sliding' };

const push = (seq: number, admits: number[]) => keySync(policy, seq, admits);

describe.each(['exact', 'buckets'] as const)('%s mode: the meta hash bounds', (mode) => {
  const store = (): RedisStore => fx.store({ clock: 'caller', mode, buckets: 10, expiryMarginMs: 600_000 });

  it('are written by a push: count, oldest and newest admit time', async () => {
    const s = store();
    await s.sync(push(1, [100, 150, 150, 200]), 200);
    const meta = await metaRecord(fx.client(), s.keyNames('k', policy).meta);
    expect(meta.a).toBe(4);
    expect(meta.o).toBe(100);
    expect(meta.z).toBe(200);
  });

  // compact mode keeps the buckets in the meta hash: there is no log to lose on its own
  it.skipIf(mode === 'buckets')(
    'a log lost on its own (its meta hash kept) counts what the log holds',
    async () => {
      const s = store();
      await s.sync(push(1, [100, 200]), 200);
      await fx.client().del(s.keyNames('k', policy).log);
      const r = await s.sync(push(2, [300]), 300);
      expect(r.replies[0].count).toBe(1);
      expect((await s.sync(push(3, []), 400)).replies[0].count).toBe(1);
    },
  );

  it('bounds lost (an older version wrote the key) are found again from the log', async () => {
    const s = store();
    await s.sync(push(1, [100, 200]), 200);
    await dropFromMetaRecord(fx.client(), s.keyNames('k', policy).meta, 'o', 'z');
    expect((await s.sync(push(2, [300]), 300)).replies[0].count).toBe(3);
    // 100 ages out at 1100: the bounds found again say so
    const r = await s.sync(push(3, []), 1100);
    expect(r.replies[0].count).toBe(2);
    const meta = await metaRecord(fx.client(), s.keyNames('k', policy).meta);
    expect(meta.o).toBe(200);
  });

  it('the oldest admit ageing out between syncs is dropped, and listed before it goes', async () => {
    const s = store();
    await s.sync(push(1, [100, 700]), 700);
    // horizon 300 ms: at 850 the admit at 100 expires at 1100, inside it
    const before = await s.sync(push(2, []), 850);
    expect(before.replies[0].count).toBe(2);
    expect(before.replies[0].expiries).toEqual([1100]);
    const after = await s.sync(push(3, [1150]), 1150);
    expect(after.replies[0].count).toBe(2);
    const meta = await metaRecord(fx.client(), s.keyNames('k', policy).meta);
    expect(meta.o).toBe(700);
    expect(meta.z).toBe(1150);
  });
});

describe.each(['exact', 'buckets'] as const)('%s mode, Redis clock: the expiry with slack', (mode) => {
  const margin = 2000;
  const store = (): RedisStore => fx.store({ mode, buckets: 10, expiryMarginMs: margin });
  const pttl = (k: string) => fx.client().pttl(k);
  const sync = (s: RedisStore, seq: number, admits: number) =>
    s.sync(keySync(policy, seq, Array(admits).fill(Date.now())), Date.now());

  it('a push within the slack leaves the expiry be; both keys keep one expiry', async () => {
    const s = store();
    const { meta } = s.keyNames('k', policy);
    // compact mode keeps the buckets in the meta hash: it alone holds the key
    const log = mode === 'exact' ? s.keyNames('k', policy).log : meta;
    await sync(s, 1, 1);
    const first = await pttl(log);
    // W + margin + slack (the slack is the margin) at most
    expect(first).toBeGreaterThan(policy.windowMs + margin);
    expect(first).toBeLessThanOrEqual(policy.windowMs + 2 * margin);
    await sync(s, 2, 1);
    expect(await pttl(log)).toBeLessThanOrEqual(first);
    // both read in one MULTI: two round trips apart, a loaded machine put 66-121 ms between them
    const both = (await fx.client().multi().pttl(meta).pttl(log).exec()) ?? [];
    const [m, l] = both.map(([err, v]) => (err === null ? Number(v) : Number.NaN));
    expect(Math.abs(m - l)).toBeLessThan(50);
  });

  it('a log emptied by a void and made anew by a push gets an expiry', async () => {
    const s = store();
    const { meta } = s.keyNames('k', policy);
    // compact mode keeps the buckets (which a void leaves be) in the meta hash
    const log = mode === 'exact' ? s.keyNames('k', policy).log : meta;
    await s.logAdmit({ key: 'k', policy, cost: 1, call: { gatewayId: 'g', seq: 1 } }, Date.now());
    await s.voidLogAdmits('g', policy, [{ key: 'k', seq: 1, cost: 1 }], Date.now());
    expect(await fx.client().exists(log)).toBe(mode === 'exact' ? 0 : 1);
    await sync(s, 1, 1);
    expect(await pttl(log)).toBeGreaterThan(0);
  });

  it.skipIf(mode === 'buckets')('a log lost on its own and made anew by a push gets an expiry', async () => {
    const s = store();
    const { log } = s.keyNames('k', policy);
    await sync(s, 1, 1);
    await fx.client().del(log);
    await sync(s, 2, 1);
    expect(await pttl(log)).toBeGreaterThan(0);
  });
});

describe.each(['exact', 'buckets'] as const)('%s mode, caller clock: the expiry on Redis clock', (mode) => {
  // W 1 s, margin (and so slack) 200 ms: a first push sets W + 400 ms; 300 ms of real time later the
  // expiry left (W + 100) no longer covers a new push's W + 200, so the push (on the plain path: its
  // oldest admit still counts) moves it to W + 400 again. Virtual time moves 10 ms only.
  const push = (s: RedisStore, seq: number, now: number) =>
    s.sync(keySync(policy, seq, [now], true, 'slack'), now);

  it('a push within the slack leaves it be; one past the slack renews both records', async () => {
    const s = fx.store({ clock: 'caller', mode, buckets: 10, expiryMarginMs: 200 });
    const { meta } = s.keyNames('slack', policy);
    // compact mode keeps the buckets in the meta hash: it alone holds the key
    const log = mode === 'exact' ? s.keyNames('slack', policy).log : meta;
    await push(s, 1, 10_000);
    const first = await fx.client().pttl(log);
    expect(first).toBeGreaterThan(1300);
    expect(first).toBeLessThanOrEqual(1400);
    await push(s, 2, 10_005);
    expect(await fx.client().pttl(log)).toBeLessThanOrEqual(first);
    await new Promise((r) => setTimeout(r, 300));
    await push(s, 3, 10_010);
    // both read in one transaction, so a loaded machine's delay between two calls is not measured
    const both = await fx.client().multi().pttl(log).pttl(meta).exec();
    const [renewed, metaTtl] = (both ?? []).map(([, v]) => Number(v));
    expect(renewed).toBeGreaterThan(1150);
    expect(Math.abs(metaTtl - renewed)).toBeLessThan(50);
  });
});
