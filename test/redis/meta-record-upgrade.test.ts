/**
 * The meta hash keeps n, a, o, z, e in one binary record (field 'c', common.lua); versions before it
 * kept them as text fields 'n', 'a', 'o', 'z', 'e'. A key written by such a version must be read as
 * it was, and the first touch converts it: the record written, the text fields a, o, z, e gone. 'n',
 * that version's run counter, stays: during a rolling upgrade both versions push to one log, and
 * their runs are named apart ('<n>.<i>*<c>' then, '<n>:<i>*<c>' now), so neither's ZADD can take a
 * live run of the other's. The record must give back every double bit for bit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import type { RedisStore } from '../../src/store/redis/index.js';
import { encodeMetaRecord, type MetaRecord, metaRecord, readMetaHash } from '../support/meta-record.js';
import { keySync } from '../support/one-key-sync.js';
import { type SingleFixture, singleServer } from '../support/redis-fixtures.js';

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const policy: Policy = { limit: 100, windowMs: 1000, windowKind: 'sliding' };
const LEGACY = ['n', 'a', 'o', 'z', 'e'] as const;
/** Converted away; 'n' is left to the older version. */
const CONVERTED = ['a', 'o', 'z', 'e'] as const;

const push = (seq: number, admits: number[], read = true) => keySync(policy, seq, admits, read);

/** Rewrites a key's record as the version before it wrote it: one text field per value (HSET by hand). */
async function asLegacy(meta: string): Promise<MetaRecord> {
  const r = await metaRecord(fx.client(), meta);
  const text: string[] = [];
  for (const f of LEGACY) if (r[f] !== undefined) text.push(f, String(r[f]));
  await fx.client().hdel(meta, 'c');
  await fx.client().hset(meta, ...text);
  return r;
}

async function expectConverted(meta: string): Promise<MetaRecord> {
  const { record, fields } = await readMetaHash(fx.client(), meta);
  for (const f of CONVERTED) expect(fields[f]).toBeUndefined();
  expect(record).not.toBeNull();
  return record as MetaRecord;
}

describe.each(['exact', 'buckets'] as const)('%s mode: a meta hash written before the record', (mode) => {
  const store = (): RedisStore => fx.store({ clock: 'caller', mode, buckets: 10, expiryMarginMs: 600_000 });

  it('is read as written by hand, and a push converts it', async () => {
    const s = store();
    const { log, meta } = s.keyNames('k', policy);
    if (mode === 'exact') {
      // the log as that version wrote it: runs named '<n>.<i>*<admits>'
      await fx.client().zadd(log, '100', '1.1*1', '150', '1.2*2', '200', '1.3*1');
    } else {
      await s.sync(push(1, [100, 150, 150, 200]), 200);
      await fx.client().hdel(meta, 'c');
    }
    await fx
      .client()
      .hset(meta, 'n', '1', 'a', '4', 'o', '100', 'z', '200', 'e', String(Date.now() + 10_000_000));
    const r = await s.sync(push(2, [300]), 300);
    expect(r.replies[0].count).toBe(5);
    const rec = await expectConverted(meta);
    expect(rec).toMatchObject({ a: 5, o: 100, z: 300 });
    const { fields } = await readMetaHash(fx.client(), meta);
    expect(fields['q:g']).toBe('2');
    expect(fields.n).toBe('1');
    if (mode === 'exact') {
      // the older version, still running, pushes 1 at 350 as it names runs: '2.1*1', text count 6
      await fx.client().zadd(log, '350', '2.1*1');
      await fx.client().hset(meta, 'n', '2', 'a', '6', 'z', '350');
      // this one's next run is '2:1*1' at 400: a new member, not the older version's run moved
      expect((await s.sync(push(3, [400]), 400)).replies[0].count).toBe(7);
      expect(await fx.client().zcard(log)).toBe(6);
      expect((await s.sync(push(4, []), 1250)).replies[0].count).toBe(3);
    } else {
      // a count the record alone now holds: the next touches go on from it (100 to 200 age out by 1200)
      expect((await s.sync(push(3, [400]), 400)).replies[0].count).toBe(6);
      expect((await s.sync(push(4, []), 1250)).replies[0].count).toBe(2);
    }
  });

  it('a central-log admit converts it', async () => {
    const s = store();
    const { meta } = s.keyNames('k', policy);
    await s.sync(push(1, [100, 200]), 200);
    const before = await asLegacy(meta);
    expect((await s.logAdmit('k', policy, 250, 3, { gatewayId: 'h', seq: 1 })).count).toBe(5);
    const rec = await expectConverted(meta);
    expect(rec).toMatchObject({ a: 5, o: before.o, z: 250 });
  });

  it('a read alone counts it right and converts it', async () => {
    const s = store();
    const { meta } = s.keyNames('k', policy);
    await s.sync(push(1, [100, 200]), 200);
    const before = await asLegacy(meta);
    expect((await s.sync(push(2, []), 500)).replies[0].count).toBe(2);
    // the run counter restarts in the record (runs are named apart from that version's)
    expect(await expectConverted(meta)).toEqual({ ...before, n: 0 });
  });

  it('text fields beside a record (an older version still writing) win over it', async () => {
    const s = store();
    const { meta } = s.keyNames('k', policy);
    await s.sync(push(1, [100, 200]), 200);
    const stale = (await fx.client().hgetBuffer(meta, 'c')) as Buffer;
    const old = await metaRecord(fx.client(), meta);
    await s.sync(push(2, [300]), 300);
    // the record as it was before 300, beside the text an older version would have written for 300
    await fx.client().hset(meta, 'c', stale, 'n', '1', 'a', '3', 'z', '300');
    expect((await s.sync(push(3, []), 400)).replies[0].count).toBe(3);
    const after = await expectConverted(meta);
    // the count and bounds from the text; the run counter is the record's own (the text's is that version's)
    expect(after).toMatchObject({ a: 3, o: old.o, z: 300, n: old.n });
    // 100 ages out at 1100, 200 at 1200
    expect((await s.sync(push(4, []), 1150)).replies[0].count).toBe(2);
  });
});

describe('the record', () => {
  it('gives back every double bit for bit', async () => {
    const s = fx.store({ clock: 'caller', expiryMarginMs: 600_000 });
    const { meta } = s.keyNames('k', policy);
    const lo = 1234.5678901234567;
    const hi = 0.1 + 0.2 + 1300;
    await s.sync(push(1, [lo, hi]), hi);
    const rec = await metaRecord(fx.client(), meta);
    expect(Object.is(rec.o, lo)).toBe(true);
    expect(Object.is(rec.z, hi)).toBe(true);
    expect(encodeMetaRecord(rec).equals((await fx.client().hgetBuffer(meta, 'c')) as Buffer)).toBe(true);
  });
});
