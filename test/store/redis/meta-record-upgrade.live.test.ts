/**
 * The meta hash keeps n, a, o, z, e in one binary record (field 'c', common.lua); versions before it
 * kept them as text fields 'n', 'a', 'o', 'z', 'e'. A key written by such a version must be read as
 * it was, and the first touch converts it: the record written, the text fields a, o, z, e gone. 'n',
 * that version's run counter, stays (runs are named apart: '<n>.<i>*<c>' then, '/<id>*<c>' now). The
 * record must give back every double bit for bit. An exact-mode fleet is upgraded all at once
 * (docs/decisions/0009): a version before the record writing beside this one is not a case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../../src/config.js';
import type { RedisStore } from '../../../src/store/redis/index.js';
import { encodeMetaRecord, type MetaRecord, metaRecord, readMetaHash } from '../../support/meta-record.js';
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

// Compact mode's layout changed since (its buckets moved into the meta hash): its upgrade is below.
describe.each(['exact'] as const)('%s mode: a meta hash written before the record', (mode) => {
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
    // a count the record alone now holds: the next touches go on from it (100 to 200 age out by 1200)
    expect((await s.sync(push(3, [400]), 400)).replies[0].count).toBe(6);
    expect(await fx.client().zcard(log)).toBe(5);
    expect((await s.sync(push(4, []), 1250)).replies[0].count).toBe(2);
  });

  it('a central-log admit converts it', async () => {
    const s = store();
    const { meta } = s.keyNames('k', policy);
    await s.sync(push(1, [100, 200]), 200);
    const before = await asLegacy(meta);
    expect(
      (await s.logAdmit({ key: 'k', policy, cost: 3, call: { gatewayId: 'h', seq: 1 } }, 250)).count,
    ).toBe(5);
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
});

/**
 * Compact mode keeps its buckets in the meta hash, beside the record 'C' (window-buckets.lua). Versions
 * before kept them in a hash of their own (the `log` key, kind 'b') beside the record 'c' (or, before
 * the record, text fields a/o/z/e). A key in that layout, or one an earlier version still running wrote
 * to since (it writes 'c' whenever it writes a bucket), is folded on its next touch: the bucket hash's
 * live buckets summed into the meta hash's per bucket number (the later latest admit kept), the bucket
 * hash and 'c' (and the text fields) deleted, the count and bounds found again, the expiry set anew.
 * W = 1000 ms, 10 buckets: an admit at t is in bucket floor(t / 100) (t < 1000).
 */
describe('compact mode: a key in the layout before the buckets moved into the meta hash', () => {
  const store = (): RedisStore =>
    fx.store({ clock: 'caller', mode: 'buckets', buckets: 10, expiryMarginMs: 600_000 });

  /** The layout an earlier version wrote: buckets 1 (3 admits, the latest at 150) and 2 (1 at 200). */
  async function asEarlier(
    s: RedisStore,
    record: 'c' | 'text' | 'none' = 'c',
  ): Promise<{ log: string; meta: string }> {
    const { log, meta } = s.keyNames('k', policy);
    await fx.client().hset(log, '1', '3:150', '2', '1:200');
    if (record === 'c') {
      await fx
        .client()
        .hset(
          meta,
          'c',
          encodeMetaRecord({ n: 0, a: 4, o: 100, z: 200, e: Date.now() + 10_000_000 }),
          'q:g',
          '1',
        );
    } else if (record === 'text') {
      await fx
        .client()
        .hset(meta, 'n', '1', 'a', '4', 'o', '100', 'z', '200', 'e', String(Date.now() + 10_000_000));
    }
    return { log, meta };
  }

  async function expectFolded(
    log: string,
    meta: string,
  ): Promise<{ record: MetaRecord; buckets: Record<string, string> }> {
    expect(await fx.client().exists(log)).toBe(0);
    const { record, recordField, fields } = await readMetaHash(fx.client(), meta);
    expect(recordField).toBe('C');
    for (const f of ['c', ...CONVERTED]) expect(fields[f]).toBeUndefined();
    const buckets: Record<string, string> = {};
    for (const [f, v] of Object.entries(fields)) if (/^\d/.test(f)) buckets[f] = v;
    // the meta hash alone holds the key now: it expires
    expect(await fx.client().pttl(meta)).toBeGreaterThan(0);
    return { record: record as MetaRecord, buckets };
  }

  it('a push folds the bucket hash into the meta hash, nothing counted lost', async () => {
    const s = store();
    const { log, meta } = await asEarlier(s);
    expect((await s.sync(push(2, [300]), 300)).replies[0].count).toBe(5);
    const { record, buckets } = await expectFolded(log, meta);
    expect(record).toMatchObject({ a: 5, z: 300 });
    expect(buckets).toEqual({ '1': '3:150', '2': '1:200', '3': '1:300' });
    // bucket 1 counts until its latest admit (150) expires at 1150
    expect((await s.sync(push(3, [], true), 1160)).replies[0].count).toBe(2);
  });

  // A fleet is upgraded at once (docs/decisions/0009): sync.lua's plain path reads only the record
  // 'C', the seq and 'G', so it does not see what such a version wrote; the general path does.
  it('buckets an earlier version still running wrote since are summed in by the general path', async () => {
    const s = store();
    const { log, meta } = s.keyNames('k', policy);
    await s.sync(push(1, [100, 210]), 210);
    // the earlier version pushes 2 at 250 into bucket 2 of its own hash, and writes its record 'c'
    await fx.client().hset(log, '2', '2:250');
    await fx.client().hset(meta, 'c', encodeMetaRecord({ n: 0, a: 2, o: 250, z: 250 }), 'q:h', '1');
    // an ask takes the general path
    const sync = push(2, [300]);
    sync.entries[0].ask = 1;
    expect((await s.sync(sync, 300)).replies[0].count).toBe(5);
    const { record, buckets } = await expectFolded(log, meta);
    expect(record).toMatchObject({ a: 5, z: 300 });
    expect(buckets).toEqual({ '1': '1:100', '2': '3:250', '3': '1:300' });
  });

  it('the fold keeps the later latest admit whichever hash holds it (issue 32)', async () => {
    const s = store();
    const { log, meta } = s.keyNames('k', policy);
    // this version's bucket 2 has its latest admit at 250; the earlier version's at 210
    await s.sync(push(1, [100, 250]), 250);
    await fx.client().hset(log, '2', '2:210');
    await fx.client().hset(meta, 'c', encodeMetaRecord({ n: 0, a: 2, o: 210, z: 210 }), 'q:h', '1');
    const sync = push(2, [300]);
    sync.entries[0].ask = 1;
    expect((await s.sync(sync, 300)).replies[0].count).toBe(5);
    const { buckets } = await expectFolded(log, meta);
    expect(buckets).toEqual({ '1': '1:100', '2': '3:250', '3': '1:300' });
    // bucket 2 counts until 250 expires (1250), not 210's 1210
    expect((await s.sync(push(3, [], true), 1240)).replies[0].count).toBe(4);
  });

  it('a key written before the record (text fields) is folded by a read', async () => {
    const s = store();
    const { log, meta } = await asEarlier(s, 'text');
    expect((await s.sync(push(2, []), 500)).replies[0].count).toBe(4);
    const { record, buckets } = await expectFolded(log, meta);
    expect(record).toMatchObject({ a: 4, z: 200 });
    expect(buckets).toEqual({ '1': '3:150', '2': '1:200' });
    // that version's run counter is left to it
    expect((await readMetaHash(fx.client(), meta)).fields.n).toBe('1');
  });

  it('a bucket hash without its meta hash is folded, and the new meta hash expires', async () => {
    const s = store();
    const { log, meta } = await asEarlier(s, 'none');
    expect((await s.sync(push(1, []), 500)).replies[0].count).toBe(4);
    await expectFolded(log, meta);
  });

  it('a central-log admit and an ask fold it', async () => {
    const s = store();
    const { log, meta } = await asEarlier(s);
    expect(
      (await s.logAdmit({ key: 'k', policy, cost: 3, call: { gatewayId: 'h', seq: 1 } }, 250)).count,
    ).toBe(7);
    expect((await expectFolded(log, meta)).record).toMatchObject({ a: 7, z: 250 });
    const t = store();
    const k2 = await asEarlier(t);
    expect((await t.ask({ gatewayId: 'a', key: 'k', policy, leaseTtlMs: 300, ask: 1000 }, 1)).granted).toBe(
      96,
    );
    await expectFolded(k2.log, k2.meta);
  });

  it('a refusal that writes nothing counts the bucket hash too', async () => {
    const s = store();
    const { log } = await asEarlier(s);
    // a cost above L: peeked, nothing written
    expect((await s.logAdmit({ key: 'k', policy, cost: 101 }, 250)).count).toBe(4);
    expect(await fx.client().exists(log)).toBe(1);
  });
});

/**
 * Compact mode writes a bucket's value as a zero byte and two little-endian doubles (admits, latest
 * admit time: window-buckets.lua); the version before wrote '<admits>:<latest>' as text, in the same
 * layout (record 'C'). Such buckets are read as they are, on the plain path and the general path,
 * and a bucket a touch adds to is written back in binary.
 */
/**
 * Compact mode marks a meta hash holding a grant or a void by its record's n (2 held, 1 none:
 * common.lua's settle); the version before marked it by a field 'G' and left n at 0. sync.lua's plain
 * path takes only n = 1, so such a hash goes to the general path, which sets n and drops 'G'.
 */
describe('compact mode: a grant marked by the version before', () => {
  it('is handed back by a sync on the general path, and the mark converted', async () => {
    const s = fx.store({ clock: 'caller', mode: 'buckets', buckets: 10, expiryMarginMs: 600_000 });
    const { meta } = s.keyNames('k', policy);
    await s.sync(push(1, [100, 110]), 110);
    expect((await metaRecord(fx.client(), meta)).n).toBe(1);
    expect((await s.ask({ gatewayId: 'g', key: 'k', policy, leaseTtlMs: 1000, ask: 5 }, 120)).granted).toBe(
      5,
    );
    expect((await metaRecord(fx.client(), meta)).n).toBe(2);
    // as the version before left it: n 0, the mark a field
    const r = await metaRecord(fx.client(), meta);
    await fx.client().hset(meta, 'C', encodeMetaRecord({ ...r, n: 0 }), 'G', '1');
    // the sync hands the grant back (release): only the general path does
    const release = push(2, [130]);
    release.entries[0].release = true;
    expect((await s.sync(release, 130)).replies[0].count).toBe(3);
    const { record, fields } = await readMetaHash(fx.client(), meta);
    expect(fields['g:g']).toBeUndefined();
    expect(fields.G).toBeUndefined();
    expect(record?.n).toBe(1);
  });
});

describe('compact mode: buckets written as text by the version before', () => {
  const store = (): RedisStore =>
    fx.store({ clock: 'caller', mode: 'buckets', buckets: 10, expiryMarginMs: 600_000 });

  /** Rewrites every bucket of a key as text, as the version before wrote it. */
  async function asText(meta: string): Promise<void> {
    const all = await fx.client().hgetallBuffer(meta);
    for (const [f, v] of Object.entries(all)) {
      if (!/^\d/.test(f)) continue;
      expect(v.length).toBe(17);
      expect(v[0]).toBe(0);
      await fx.client().hset(meta, f, `${v.readDoubleLE(1)}:${v.readDoubleLE(9)}`);
    }
  }

  it('a push on the plain path adds to a text bucket and writes it in binary', async () => {
    const s = store();
    const { meta } = s.keyNames('k', policy);
    await s.sync(push(1, [100, 150, 210]), 210);
    await asText(meta);
    expect((await fx.client().hget(meta, '1')) as string).toBe('2:150');
    expect((await s.sync(push(2, [160, 170]), 220)).replies[0].count).toBe(5);
    const v = (await fx.client().hgetBuffer(meta, '1')) as Buffer;
    expect([v.length, v[0], v.readDoubleLE(1), v.readDoubleLE(9)]).toEqual([17, 0, 4, 170]);
    // bucket 2's text was only read: left as it was
    expect((await fx.client().hget(meta, '2')) as string).toBe('1:210');
  });

  it('text buckets age out and are counted on the general path', async () => {
    const s = store();
    const { meta } = s.keyNames('k', policy);
    await s.sync(push(1, [100, 150, 210]), 210);
    await asText(meta);
    // bucket 1 (latest 150) counts until 1150, bucket 2 (210) until 1210
    expect((await s.sync(push(2, [], true), 1160)).replies[0].count).toBe(1);
    expect((await s.sync(push(3, [], true), 1210)).replies[0].count).toBe(0);
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
