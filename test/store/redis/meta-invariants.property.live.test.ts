/**
 * What the meta hash says of its log must stay true after any run of syncs, whichever path of
 * sync.lua wrote it (the plain path for a key with nothing aged and no grant, the general path
 * otherwise): the count ('a') is what the log holds, 'o' is no later than its oldest admit time and
 * 'z' no earlier than its newest, and both records outlive the newest admit's expiry plus the margin
 * (compact mode: the buckets are fields of the meta hash, which alone holds the key).
 * Decisions are checked against MemoryStore elsewhere (differential.test.ts); these bounds decide
 * when a touch may skip reading the log and when the key expires, which decisions alone can miss.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../../src/config.js';
import type { RedisStore } from '../../../src/store/redis/index.js';
import { readExactLog } from '../../support/exact-log.js';
import { seeded } from '../../support/fc-seed.js';
import { metaBuckets, readMetaHash } from '../../support/meta-record.js';
import { type SingleFixture, singleServer } from '../../support/redis-fixtures.js';

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
  // grants asked for and handed back, and now and then a void of a central-log call: these keep the
  // key off sync.lua's plain path by the mark 'G' (common.lua's settle)
  ask: fc.constantFrom(0, 0, 0, 1, 3),
  release: fc.boolean(),
  voids: fc.boolean(),
});

/** The log's admit times and their admits, as the window module keeps them. */
async function logEntries(s: RedisStore, key: string, policy: Policy, mode: 'exact' | 'buckets') {
  const { log } = s.keyNames(key, policy);
  const out: { t: number; admits: number }[] = [];
  if (mode === 'exact') {
    for (const run of await readExactLog(fx.client(), log)) out.push({ t: run.at, admits: run.admits });
  } else {
    // compact mode: the buckets are fields of the meta hash, the bucket hash of earlier versions unused
    expect(await fx.client().exists(log)).toBe(0);
    out.push(...(await metaBuckets(fx.client(), s.keyNames(key, policy).meta)));
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
                    release: st.release,
                    ask: st.ask,
                  },
                ],
              },
              now,
            );
            if (st.voids && st.step % 4 === 0)
              await s.voidLogAdmits(st.gateway, policy, [{ key, seq: seqs[st.gateway], cost: 1 }], now);
            const entries = await logEntries(s, key, policy, mode);
            const { record, recordField, fields } = await readMetaHash(fx.client(), meta);
            if (recordField !== null || Object.keys(fields).length > 0) {
              // this version's record only; a grant or a void that still counts is marked
              if (mode === 'buckets') {
                expect(recordField === null || recordField === 'C').toBe(true);
                expect(fields.c).toBeUndefined();
              }
              const held = Object.entries(fields).some(
                ([f, v]) =>
                  f.startsWith('g:') || (f.startsWith('v:') && Number(v.slice(v.indexOf(':') + 1)) > now),
              );
              // exact mode by field 'G'; compact mode by the record's n (2; 1 when none is held)
              if (mode === 'exact' && held) expect(fields.G).toBe('1');
              if (mode === 'buckets') {
                expect(fields.G).toBeUndefined();
                if (recordField !== null) expect(record?.n).toBe(held ? 2 : 1);
                else expect(held).toBe(false);
              }
            }
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
            const pm = await fx.client().pttl(meta);
            expect(pm).toBeGreaterThanOrEqual(expiry + MARGIN - now - 200);
            if (mode === 'exact') expect(Math.abs((await fx.client().pttl(log)) - pm)).toBeLessThan(1000);
          }
        },
      ),
      seeded({ numRuns: 60 }),
    );
  });
});
