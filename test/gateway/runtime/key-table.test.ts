import { describe, expect, it } from 'vitest';
import type { Policy } from '../../../src/config.js';
import type { KeyLimiter } from '../../../src/designs/key-limiter.js';
import { KeyTable, type KeyTableOptions } from '../../../src/gateway/runtime/key-table.js';

/** A limiter stub: only what the table reads (idle, unconfirmed admits). */
class Stub {
  idle = false;
  unsynced = 1;
  isIdle(): boolean {
    return this.idle;
  }
  unsyncedAdmits(): number {
    return this.unsynced;
  }
}

const policy: Policy = { limit: 10, windowMs: 1_000, windowKind: 'sliding' } as Policy;

function table(o: Partial<KeyTableOptions> = {}) {
  const made: Stub[] = [];
  let full = 0;
  const t = new KeyTable({
    maxKeys: 64,
    policy,
    holdsKeys: true,
    create: () => {
      const s = new Stub();
      made.push(s);
      return s as unknown as KeyLimiter;
    },
    busy: () => false,
    onFull: () => {
      full++;
    },
    ...o,
  });
  return { t, made, fulls: () => full };
}

const stub = (l: KeyLimiter | null | undefined) => l as unknown as Stub;
const keys = (t: KeyTable) => t.keys();

describe('KeyTable', () => {
  it('holds one limiter per key; a design that holds no keys gets a fresh one each time', () => {
    const { t } = table();
    const a = t.limiterOf('a', 0);
    expect(t.limiterOf('a', 1)).toBe(a);
    expect(t.size).toBe(1);
    const { t: none } = table({ holdsKeys: false });
    expect(none.limiterOf('a', 0)).not.toBe(none.limiterOf('a', 0));
    expect(none.size).toBe(0);
  });

  it('a key used again moves last, but not during a walk (a batch being built)', async () => {
    const { t } = table();
    for (const k of ['a', 'b', 'c']) t.limiterOf(k, 0);
    t.limiterOf('a', 0);
    expect(keys(t)).toEqual(['b', 'c', 'a']);
    const met: string[] = [];
    await t.walk((key) => {
      met.push(key);
      // moved behind the walk, it would be met twice
      t.limiterOf('b', 0);
    });
    expect(met).toEqual(['b', 'c', 'a']);
    expect(keys(t)).toEqual(['b', 'c', 'a']);
    t.limiterOf('b', 0);
    expect(keys(t)).toEqual(['c', 'a', 'b']);
  });

  it('at the cap with every key unconfirmed: no room, one call for a sync, no rescan until cleared', () => {
    const { t, fulls } = table();
    for (let i = 0; i < 64; i++) expect(t.limiterOf(`k${i}`, 0)).not.toBeNull();
    expect(t.limiterOf('new', 0)).toBeNull();
    expect(t.full).toBe(true);
    expect(fulls()).toBe(1);
    expect(t.limiterOf('new2', 0)).toBeNull();
    expect(fulls()).toBe(1);
    expect(t.evictions).toBe(0);
  });

  it('makes room: idle state first (not counted), then confirmed keys least recently used first, down to 7/8', () => {
    const { t, made } = table();
    for (let i = 0; i < 64; i++) t.limiterOf(`k${i}`, 0);
    made[5].idle = true;
    for (let i = 10; i < 64; i++) made[i].unsynced = 0;
    t.limiterOf('k10', 0); // used again: last
    expect(t.limiterOf('new', 0)).not.toBeNull();
    // k5 dropped as idle; then confirmed keys k11, k12, … until 56 are held
    expect(t.evictions).toBe(63 - 56);
    expect(t.size).toBe(57);
    expect(t.get('k5')).toBeUndefined();
    expect(t.get('k10')).toBeDefined();
    expect(t.get('k11')).toBeUndefined();
    expect(t.get('k17')).toBeUndefined();
    expect(t.get('k18')).toBeDefined();
  });

  it('never evicts a key whose ask is out, nor one with an outage record', () => {
    const { t, made } = table({ busy: (k) => k === 'k0' });
    for (let i = 0; i < 64; i++) t.limiterOf(`k${i}`, 0);
    for (const s of made) s.unsynced = 0;
    expect(t.outageOf('k1', 0)?.record(0, 1, 5)).toBe(1);
    expect(t.limiterOf('new', 0)).not.toBeNull();
    expect(t.get('k0')).toBeDefined();
    expect(t.get('k1')).toBeDefined();
    expect(t.get('k2')).toBeUndefined();
  });

  it('a held key always gets its outage record; a new one only with room', () => {
    const { t } = table({ maxKeys: 2 });
    t.limiterOf('a', 0);
    t.limiterOf('b', 0);
    expect(t.outageOf('a', 0)).not.toBeNull();
    expect(t.outageOf('z', 0)).toBeNull();
    const fb = t.outageOf('a', 0);
    expect(fb?.record(0, 1, 5)).toBe(1);
    expect(t.hasOutageAdmits('a')).toBe(true);
    expect(t.hasOutageAdmits('b')).toBe(false);
    expect(t.unconfirmedOutageAdmits()).toBe(1);
  });

  it('drops a key found idle only if it is still the same limiter', () => {
    const { t } = table();
    const a = t.limiterOf('a', 0);
    stub(a).idle = true;
    const other = new Stub();
    other.idle = true;
    t.dropIdle('a', other as unknown as KeyLimiter);
    expect(t.get('a')).toBe(a);
    t.dropIdle('a', a as KeyLimiter);
    expect(t.get('a')).toBeUndefined();
  });

  it('a sweep drops idle state and clears `full` only if it dropped some', async () => {
    const { t, made } = table({ maxKeys: 4 });
    for (let i = 0; i < 4; i++) t.limiterOf(`k${i}`, 0);
    expect(t.limiterOf('new', 0)).toBeNull();
    await t.sweep(0);
    expect(t.full).toBe(true);
    made[2].idle = true;
    await t.sweep(0);
    expect(t.full).toBe(false);
    expect(t.size).toBe(3);
  });

  it('drops an outage record only if it is still the same one and idle (Stryker survivors)', () => {
    const { t } = table();
    const fb = t.outageOf('a', 0)!;
    fb.record(0, 1, 5);
    fb.take(0);
    // in flight: not idle, kept
    t.dropIdleOutage('a', fb, 500);
    expect(t.outage('a')).toBe(fb);
    fb.confirm();
    // another record under the key: kept
    const other = t.outageOf('b', 0)!;
    t.dropIdleOutage('a', other, 500);
    expect(t.outage('a')).toBe(fb);
    // still counting at 999: kept; idle at 1,000: dropped
    t.dropIdleOutage('a', fb, 999);
    expect(t.outage('a')).toBe(fb);
    t.dropIdleOutage('a', fb, 1_000);
    expect(t.hasOutage('a')).toBe(false);
  });

  it('makes room by dropping idle outage records too', () => {
    const { t, made } = table();
    for (let i = 0; i < 32; i++) t.limiterOf(`k${i}`, 0);
    for (let i = 0; i < 32; i++) t.outageOf(`o${i}`, 0)!.record(0, 1, 5);
    expect(t.size + t.outageCount).toBe(64);
    expect(t.limiterOf('new', 0)).toBeNull();
    // the outage admits aged out; the limiters all hold unconfirmed admits
    for (const s of made) s.unsynced = 1;
    t.syncAnswered();
    expect(t.limiterOf('new', 1_000)).not.toBeNull();
    expect(t.outageCount).toBe(0);
    expect(t.evictions).toBe(0);
  });

  it('a sweep drops idle outage records, and clears `full` for them', async () => {
    const { t } = table({ maxKeys: 4 });
    for (let i = 0; i < 4; i++) t.outageOf(`o${i}`, 0)!.record(0, 1, 5);
    expect(t.limiterOf('new', 0)).toBeNull();
    await t.sweep(999);
    expect(t.outageCount).toBe(4);
    expect(t.full).toBe(true);
    await t.sweep(1_000);
    expect(t.outageCount).toBe(0);
    expect(t.full).toBe(false);
  });
});
