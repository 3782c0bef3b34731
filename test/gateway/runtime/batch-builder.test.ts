import { describe, expect, it } from 'vitest';
import { DESIGNS } from '../../../src/designs/index.js';
import { resolveGatewayOptions } from '../../../src/gateway/options.js';
import { buildBatch } from '../../../src/gateway/runtime/batch-builder.js';
import { KeyTable } from '../../../src/gateway/runtime/key-table.js';
import { ReadTurns } from '../../../src/gateway/runtime/read-turns.js';
import { runTotal } from '../../../src/window/runs.js';

function table() {
  const { fleet, policy } = resolveGatewayOptions({
    id: 'g',
    design: 'shared-counter',
    limit: 100,
    windowMs: 10_000,
    gateways: 2,
    syncMs: 100,
  });
  const d = DESIGNS['shared-counter'];
  const t = new KeyTable({
    maxKeys: 100,
    policy,
    holdsKeys: true,
    create: (now) => d.create(fleet, now),
    busy: () => false,
    onFull: () => {},
  });
  const admit = (key: string, n: number) => {
    const lim = t.limiterOf(key, 0)!;
    for (let i = 0; i < n; i++) lim.decide(0, 1);
  };
  return { t, admit };
}

const how = { now: 1, final: false, lazy: true, limit: 100, unresolved: new Set<string>(), partKeys: 1_000 };

describe('buildBatch', () => {
  it('pushes near the limit, then far pushes and outage records, then the reads that waited their turn', async () => {
    const { t, admit } = table();
    t.limiterOf('quiet', 0);
    admit('far', 1);
    admit('near', 60);
    t.outageOf('o', 0)!.record(0, 2, 100);
    const b = await buildBatch(t, how, new ReadTurns());
    expect(b.entries.map((e) => [e.key, runTotal(e.admits, e.counts)])).toEqual([
      ['near', 60],
      ['far', 1],
      ['o', 2],
      ['quiet', 0],
    ]);
    // the outage record's admits are counted by it, not by a limiter
    expect(b.own).toEqual([60, 1, 0, 0]);
    expect(b.owners[2]).toBeNull();
  });

  it('leaves out the keys of unanswered parts; a read waits only when the design reads lazily', async () => {
    const { t, admit } = table();
    t.limiterOf('quiet', 0);
    admit('u', 1);
    const b = await buildBatch(t, { ...how, unresolved: new Set(['u']), partKeys: 16 }, new ReadTurns());
    expect(b.entries.map((e) => e.key)).toEqual(['quiet']);
    const every = await buildBatch(t, { ...how, lazy: false }, new ReadTurns());
    expect(every.entries.map((e) => e.key)).toEqual(['u', 'quiet']);
  });
});
