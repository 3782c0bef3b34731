/**
 * What the meta hash says of its log must stay true after any run of syncs, whichever path of
 * sync.lua wrote it (the plain path for a key with nothing aged and no grant, the general path
 * otherwise): the count ('a') is what the log holds, 'o' is no later than its oldest admit time and
 * 'z' no earlier than its newest, and both records outlive the newest admit's expiry plus the margin.
 * Decisions are checked against MemoryStore elsewhere (differential.test.ts); these bounds decide
 * when a touch may skip reading the log and when the key expires, which decisions alone can miss.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import type { RedisStore } from '../../src/store/redis/index.js';
import { readExactLog } from '../support/exact-log.js';
import { seeded } from '../support/fc-seed.js';
import { readMetaHash } from '../support/meta-record.js';
import { type SingleFixture, singleServer } from '../support/redis-fixtures.js';

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const MARGIN = 600_000;

/** A sync: virtual time moves on by `step`, then admits at now minus each offset (small integers collide). */
const syncStep = fc.record({
  step: fc.integer({ min: 0, max: 400 }),
  offsets: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 4 }),
  gateway: fc.constantFrom('g1', 'g2'),
  read: fc.boolean(),
});

/** The log's admit times and their admits, as the window module keeps them. */
async function logEntries(s: RedisStore, key: string, policy: Policy, mode: 'exact' | 'buckets') {
  const { log } = s.keyNames(key, policy);
  const out: { t: number; admits: number }[] = [];
  if (mode === 'exact') {
    for (const run of await readExactLog(fx.client(), log)) out.push({ t: run.at, admits: run.admits });
  } else {
    for (const v of Object.values(await fx.client().hgetall(log))) {
      const [c, t] = v.split(':');
      out.push({ t: Number(t), admits: Number(c) });
    }
  }
  return out;
}

describe.each(['exact', 'buckets'] as const)('%s mode: the meta hash after any syncs', (mode) => {
  it('counts what the log holds, bounds its admit times, and outlives the newest', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(syncStep, { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        async (steps, fixed) => {
          const policy: Policy = { limit: 1000, windowMs: 1000, windowKind: fixed ? 'fixed' : 'sliding' };
          const s = fx.store({ clock: 'caller', mode, buckets: 4, expiryMarginMs: MARGIN });
          const key = `inv-${mode}-${++run}`;
          const { log, meta } = s.keyNames(key, policy);
          const seqs: Record<string, number> = { g1: 0, g2: 0 };
          let now = 10_000;
          for (const st of steps) {
            now += st.step;
            await s.sync(
              {
                gatewayId: st.gateway,
                seq: ++seqs[st.gateway],
                policy,
                leaseTtlMs: 100,
                horizonMs: 300,
                entries: [
                  {
                    key,
                    admits: st.offsets.map((o) => now - o).sort((a, b) => a - b),
                    read: st.read,
                    release: false,
                    ask: 0,
                  },
                ],
              },
              now,
            );
            const entries = await logEntries(s, key, policy, mode);
            const { record } = await readMetaHash(fx.client(), meta);
            if (entries.length === 0) continue;
            const total = entries.reduce((x, e) => x + e.admits, 0);
            const oldest = Math.min(...entries.map((e) => e.t));
            const newest = Math.max(...entries.map((e) => e.t));
            // aged entries may linger until a touch prunes them; the stored count then includes them
            expect(record?.a).toBe(total);
            expect(record?.o).toBeLessThanOrEqual(oldest);
            expect(record?.z).toBeGreaterThanOrEqual(newest);
            // the records expire together, the margin past the newest admit's expiry at least: on the
            // caller's virtual clock, measured from `now` (less the real time since the sync, 200 ms)
            const expiry = fixed ? (Math.floor(newest / 1000) + 1) * 1000 : newest + 1000;
            const [pl, pm] = [await fx.client().pttl(log), await fx.client().pttl(meta)];
            expect(pl).toBeGreaterThanOrEqual(expiry + MARGIN - now - 200);
            expect(Math.abs(pl - pm)).toBeLessThan(1000);
          }
        },
      ),
      seeded({ numRuns: 60 }),
    );
  });
});
