/**
 * buildBatch's branches one at a time (issue 32: Stryker found them reached only through whole syncs):
 * the line between near and far keys, a key's entry with an outage record before the reads, the last
 * sync's zero ask and its reads that do not wait, a quiet key with an outage record, limiter and
 * outage admits of one key in one entry, idle keys and outage records dropped on the way, reads that
 * follow requests, and a reset queued while the batch is built.
 */
import { describe, expect, it } from 'vitest';
import type { DesignId } from '../../../src/config.js';
import { DESIGNS } from '../../../src/designs/index.js';
import { type GatewayOptions, resolveGatewayOptions } from '../../../src/gateway/options.js';
import { type BatchHow, buildBatch } from '../../../src/gateway/runtime/batch-builder.js';
import { KeyTable } from '../../../src/gateway/runtime/key-table.js';
import { ReadTurns } from '../../../src/gateway/runtime/read-turns.js';
import { runTotal } from '../../../src/window/runs.js';

const W = 10_000;

function table(design: DesignId = 'shared-counter', extra: Partial<GatewayOptions> = {}) {
  const { fleet, policy } = resolveGatewayOptions({
    id: 'g',
    design,
    limit: 100,
    windowMs: W,
    gateways: 2,
    syncMs: 100,
    ...extra,
  });
  const d = DESIGNS[design];
  const t = new KeyTable({
    maxKeys: 100,
    policy,
    holdsKeys: true,
    create: (now) => d.create(fleet, now),
    busy: () => false,
    onFull: () => {},
  });
  const admit = (key: string, n: number, at = 0) => {
    const lim = t.limiterOf(key, at)!;
    for (let i = 0; i < n; i++) lim.decide(at, 1);
    return lim;
  };
  return { t, admit };
}

const how: BatchHow = {
  now: 1,
  final: false,
  lazy: true,
  limit: 100,
  unresolved: new Set<string>(),
  partKeys: 1_000,
};

const keysOf = (b: { entries: { key: string }[] }) => b.entries.map((e) => e.key);

describe('buildBatch: the order', () => {
  it('a key with half of L left is near: its push goes first', async () => {
    const { t, admit } = table();
    admit('far', 49);
    admit('near', 50);
    admit('one', 1);
    const b = await buildBatch(t, how, new ReadTurns());
    expect(keysOf(b)).toEqual(['near', 'far', 'one']);
    expect(b.own).toEqual([50, 49, 1]);
    // without outage admits the entry is the limiter's own, unmerged (one admit a run: no counts)
    expect(b.entries[2]).toEqual({ key: 'one', admits: [0], read: true, release: false, ask: 0 });
    expect(b.entries[2].counts).toBeUndefined();
  });

  it('a quiet key whose view has half of L left does not wait its turn', async () => {
    const { t } = table();
    for (const k of ['a', 'b', 'c', 'd', 'e']) t.limiterOf(k, 0);
    const n = t.limiterOf('n', 0)!;
    n.syncEntry('n', 0);
    n.applySync({ count: 50, expiries: [], horizon: W + 100, granted: 0, grantExpiresAt: 0 }, 0);
    expect(n.remaining(1)).toBe(50);
    // partKeys 1: the round's reads that wait take 4 − 1 = 3
    const b = await buildBatch(t, { ...how, partKeys: 1 }, new ReadTurns());
    expect(keysOf(b)).toEqual(['n', 'a', 'b', 'c']);
  });

  it('the entry of a key with an outage record goes before the bare reads', async () => {
    const { t, admit } = table();
    admit('q', 0);
    admit('f', 0);
    // a record that has nothing to push any more (its admits were taken)
    const fb = t.outageOf('f', 0)!;
    fb.record(0, 1, 100);
    fb.take(0);
    fb.confirm();
    const b = await buildBatch(t, { ...how, lazy: false }, new ReadTurns());
    expect(keysOf(b)).toEqual(['f', 'q']);
    expect(b.fallbacks[0]).toBe(fb);
    expect(b.fallbacks[1]).toBeNull();
    expect(b.entries.map((e) => e.read)).toEqual([true, true]);
  });
});

describe('buildBatch: the last sync', () => {
  it('asks for nothing (leases: another sync asks)', async () => {
    const { t } = table('leases');
    const lim = t.limiterOf('a', 0)!;
    expect((await buildBatch(t, how, new ReadTurns())).entries[0].ask).toBe(1);
    lim.applySync({ count: 0, expiries: [], horizon: 1000, granted: 1, grantExpiresAt: 1000 }, 1);
    const b = await buildBatch(t, { ...how, now: 2, final: true }, new ReadTurns());
    expect(b.entries.length).toBe(1);
    expect(b.entries[0].ask).toBe(0);
    expect(b.owners[0]).toBe(lim);
  });

  it('reads every quiet key: none waits its turn', async () => {
    const { t } = table();
    for (const k of ['a', 'b', 'c', 'd', 'e']) t.limiterOf(k, 0);
    // partKeys 1: a round of lazy reads takes 4 of them
    const lazy = await buildBatch(t, { ...how, partKeys: 1 }, new ReadTurns());
    expect(keysOf(lazy)).toEqual(['a', 'b', 'c', 'd']);
    const last = await buildBatch(t, { ...how, partKeys: 1, final: true }, new ReadTurns());
    expect(keysOf(last)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('the reads that wait fill what the round has left: four parts less the other entries', async () => {
    const { t, admit } = table();
    admit('p', 1);
    admit('r', 1);
    for (const k of ['a', 'b', 'c', 'd', 'e']) t.limiterOf(k, 0);
    const b = await buildBatch(t, { ...how, partKeys: 1 }, new ReadTurns());
    expect(keysOf(b)).toEqual(['p', 'r', 'a', 'b']);
  });
});

describe('buildBatch: outage records', () => {
  it('a quiet key with an outage record does not wait its turn: its entry carries the record', async () => {
    const { t } = table();
    t.limiterOf('q', 0);
    const fb = t.outageOf('q', 0)!;
    const b = await buildBatch(t, how, new ReadTurns());
    expect(keysOf(b)).toEqual(['q']);
    expect(b.fallbacks[0]).toBe(fb);
  });

  it('a key’s own and outage admits go in one entry; only its own count as the limiter’s', async () => {
    const { t, admit } = table();
    const lim = admit('k', 2, 0);
    t.outageOf('k', 0)!.record(0, 3, 100);
    admit('k', 1, 1);
    t.outageOf('k', 1)!.record(1, 1, 100);
    const b = await buildBatch(t, { ...how, now: 2 }, new ReadTurns());
    expect(keysOf(b)).toEqual(['k']);
    // runs in time order, the limiter's first at a shared instant (mergeRuns)
    expect(b.entries[0].admits).toEqual([0, 0, 1, 1]);
    expect(b.entries[0].counts).toEqual([2, 3, 1, 1]);
    expect(b.own).toEqual([3]);
    expect(b.owners[0]).toBe(lim);
    // the limiter's own list is not the merged one
    expect(lim.unsyncedAdmits()).toBe(3);
  });

  it('a key with nothing to tell the store pushes its outage admits alone, and is kept', async () => {
    // split: its limiter has no entry, ever
    const { t, admit } = table('split');
    admit('k', 1, 0);
    const fb = t.outageOf('k', 0)!;
    fb.record(0, 2, 100);
    const b = await buildBatch(t, how, new ReadTurns());
    expect(b.entries).toEqual([{ key: 'k', admits: [0], counts: [2], read: false, release: false, ask: 0 }]);
    expect(b.owners).toEqual([null]);
    expect(b.own).toEqual([0]);
    expect(b.fallbacks).toEqual([fb]);
    expect(t.has('k')).toBe(true);
  });

  it('an outage record of a key without a limiter pushes alone, and goes once it holds nothing', async () => {
    const { t } = table();
    t.outageOf('o', 0)!.record(0, 2, 100);
    const b = await buildBatch(t, how, new ReadTurns());
    expect(b.entries).toEqual([{ key: 'o', admits: [0], counts: [2], read: false, release: false, ask: 0 }]);
    expect(b.owners).toEqual([null]);
    expect(b.own).toEqual([0]);
    t.outage('o')!.confirm();
    // still counting: kept
    expect(keysOf(await buildBatch(t, how, new ReadTurns()))).toEqual([]);
    expect(t.hasOutage('o')).toBe(true);
    // aged out: dropped
    expect(keysOf(await buildBatch(t, { ...how, now: W }, new ReadTurns()))).toEqual([]);
    expect(t.hasOutage('o')).toBe(false);
  });
});

describe('buildBatch: keys dropped and left out', () => {
  it('a key with nothing left is dropped on the way', async () => {
    // split: its admits are its own share's, never told to the store; a key has no entry
    const { t, admit } = table('split');
    admit('k', 1, 0);
    // its admit still counts: kept
    expect(keysOf(await buildBatch(t, { ...how, now: W - 1, lazy: false }, new ReadTurns()))).toEqual([]);
    expect(t.has('k')).toBe(true);
    expect(keysOf(await buildBatch(t, { ...how, now: W, lazy: false }, new ReadTurns()))).toEqual([]);
    expect(t.has('k')).toBe(false);
  });

  it('reads that follow requests: a quiet key is read after a request, left out after, dropped once idle', async () => {
    const { t, admit } = table('shared-counter', { reads: 'on-request' });
    const lim = admit('k', 1, 0);
    const push = await buildBatch(t, how, new ReadTurns());
    expect(keysOf(push)).toEqual(['k']);
    lim.applySync({ count: 1, expiries: [W], horizon: W + 100, granted: 0, grantExpiresAt: 0 }, 1);
    // no request since: left out, kept while its admit counts
    expect(keysOf(await buildBatch(t, { ...how, now: 2 }, new ReadTurns()))).toEqual([]);
    expect(t.has('k')).toBe(true);
    // a request since (refused or not): read in its turn
    lim.noteRejected(1, 3);
    expect(keysOf(await buildBatch(t, { ...how, now: 4 }, new ReadTurns()))).toEqual(['k']);
    lim.applySync({ count: 1, expiries: [W], horizon: W + 100, granted: 0, grantExpiresAt: 0 }, 5);
    expect(keysOf(await buildBatch(t, { ...how, now: W }, new ReadTurns()))).toEqual([]);
    expect(t.has('k')).toBe(false);
  });

  it('a key whose reset is queued while the batch is built is left out of the reads that wait', async () => {
    const { t } = table();
    t.limiterOf('quiet', 0);
    t.outageOf('o', 0)!.record(0, 1, 100);
    const waiting = new Set(['other']);
    // the reset of 'quiet' is queued as the walk reaches the outage records
    const unresolved = {
      get size() {
        return waiting.size;
      },
      has(key: string) {
        if (key === 'o') waiting.add('quiet');
        return waiting.has(key);
      },
    };
    const b = await buildBatch(t, { ...how, unresolved }, new ReadTurns());
    expect(keysOf(b)).toEqual(['o']);
  });

  it('an unanswered part’s key is left out, its outage record too; the others are not', async () => {
    const { t, admit } = table();
    admit('u', 1);
    admit('v', 1);
    t.outageOf('o', 0)!.record(0, 1, 100);
    t.outageOf('p', 0)!.record(0, 1, 100);
    const b = await buildBatch(t, { ...how, unresolved: new Set(['u', 'o']) }, new ReadTurns());
    expect(keysOf(b)).toEqual(['v', 'p']);
    expect(b.entries.map((e) => runTotal(e.admits, e.counts))).toEqual([1, 1]);
  });
});
