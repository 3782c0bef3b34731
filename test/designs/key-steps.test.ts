import { describe, expect, it } from 'vitest';
import { DESIGNS } from '../../src/designs/index.js';
import {
  ALLOW,
  type AsksStore,
  asksStore,
  DENY,
  logsAtStore,
  NEED_STORE,
  syncsEarly,
} from '../../src/designs/key-limiter.js';
import { applyReply, askAnswered, callStore, DROP, syncEntryOf } from '../../src/designs/key-steps.js';
import { resolveGatewayOptions } from '../../src/gateway/options.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const fleetOf = (design: 'shared-counter' | 'central-log' | 'leases-ask') =>
  resolveGatewayOptions({ id: 'g', design, limit: 2, windowMs: 1_000, gateways: 1, syncMs: 100 }).fleet;

describe('key steps', () => {
  it('a key with nothing to tell is kept while it counts, DROP once nothing is left', () => {
    const lim = DESIGNS.split.create(fleetOf('shared-counter'), 0);
    expect(lim.decide(0, 1)).toBe(ALLOW);
    expect(syncEntryOf(lim, 'k', 10)).toBeNull();
    expect(syncEntryOf(lim, 'k', 1_000)).toBe(DROP);
  });

  it('a reply applied says whether anything is left of the key', () => {
    const fleet = fleetOf('shared-counter');
    const lim = DESIGNS['shared-counter'].create(fleet, 0);
    const store = new MemoryStore();
    const exchange = (now: number) => {
      const e = syncEntryOf(lim, 'k', now);
      if (e === null || e === DROP) throw new Error('shared-counter reads at every sync');
      const req = {
        gatewayId: 'g',
        seq: now,
        policy: fleet.policy,
        leaseTtlMs: 0,
        horizonMs: 1_000,
        entries: [e],
      };
      return applyReply(lim, store.sync(req, now).replies[0], now);
    };
    expect(lim.decide(0, 1)).toBe(ALLOW);
    // the admit counts until 1,000
    expect(exchange(10)).toBe(false);
    expect(exchange(1_000)).toBe(true);
  });

  it('callStore: central-log logs on the store, leases-ask asks it, and each limiter decides on the reply', () => {
    const store = new MemoryStore();
    const log = fleetOf('central-log');
    const lim = DESIGNS['central-log'].create(log, 0);
    for (let i = 0; i < 2; i++) {
      expect(lim.decide(i, 1)).toBe(NEED_STORE);
      expect(callStore(store, 'log', lim, 'g', 'k', log, i, 1, 0)).toBe(true);
    }
    expect(lim.decide(2, 1)).toBe(NEED_STORE);
    expect(callStore(store, 'log', lim, 'g', 'k', log, 2, 1, 0)).toBe(false);
    const ask = fleetOf('leases-ask');
    const lease = DESIGNS['leases-ask'].create(ask, 0);
    expect(lease.decide(0, 1)).toBe(NEED_STORE);
    expect(callStore(store, 'ask', lease, 'g', 'k2', ask, 0, 1, 0)).toBe(true);
  });

  it('askAnswered: ALLOW on the grant, else what the limiter decides again', () => {
    const calls: string[] = [];
    const fake = (granted: boolean, again: number) =>
      ({
        onAskReply: () => {
          calls.push('reply');
          return granted;
        },
        decideAgain: () => {
          calls.push('again');
          return again;
        },
      }) as unknown as AsksStore;
    const reply = { granted: 0, grantExpiresAt: 0, count: 0, now: 0 };
    expect(askAnswered(fake(true, DENY), reply, 0, 1)).toBe(ALLOW);
    expect(calls).toEqual(['reply']);
    expect(askAnswered(fake(false, NEED_STORE), reply, 0, 1)).toBe(NEED_STORE);
    expect(askAnswered(fake(false, DENY), reply, 0, 1)).toBe(DENY);
    expect(calls).toEqual(['reply', 'reply', 'again', 'reply', 'again']);
  });
});

describe('capabilities', () => {
  it('each design has the request path its row names, and early syncs only where it has them', () => {
    const fleet = fleetOf('shared-counter');
    for (const [id, d] of Object.entries(DESIGNS)) {
      const lim = d.create(fleet, 0);
      expect(logsAtStore(lim), id).toBe(d.requestPath === 'log');
      if (d.requestPath === 'ask') expect(asksStore(lim), id).toBe(true);
      expect(asksStore(lim), id).toBe(d.grants);
      expect(syncsEarly(lim), id).toBe(d.earlySyncs !== null);
    }
  });

  it('callStore refuses a request path the limiter does not have (a fault, not an outcome)', () => {
    const lim = DESIGNS['shared-counter'].create(fleetOf('shared-counter'), 0);
    expect(() =>
      callStore(new MemoryStore(), 'log', lim, 'g', 'k', fleetOf('shared-counter'), 0, 1, 0),
    ).toThrow(/NEED_STORE/);
  });

  it('callStore takes the path it is given: a limiter of the other path, or none, is refused', () => {
    const store = new MemoryStore();
    const log = fleetOf('central-log');
    const central = DESIGNS['central-log'].create(log, 0);
    expect(central.decide(0, 1)).toBe(NEED_STORE);
    expect(() => callStore(store, 'ask', central, 'g', 'k', log, 0, 1, 0)).toThrow(
      'central-log said NEED_STORE without the store call its request path needs',
    );
    expect(() => callStore(store, null, central, 'g', 'k', log, 0, 1, 0)).toThrow(
      /central-log said NEED_STORE/,
    );
    const ask = fleetOf('leases-ask');
    const lease = DESIGNS['leases-ask'].create(ask, 0);
    expect(lease.decide(0, 1)).toBe(NEED_STORE);
    expect(() => callStore(store, 'log', lease, 'g', 'k2', ask, 0, 1, 0)).toThrow(
      /leases-ask said NEED_STORE/,
    );
    // nothing reached the store
    expect(callStore(store, 'log', central, 'g', 'k', log, 0, 1, 0)).toBe(true);
    expect(callStore(store, 'log', central, 'g', 'k', log, 0, 1, 0)).toBe(true);
    expect(callStore(store, 'log', central, 'g', 'k', log, 0, 1, 0)).toBe(false);
  });
});
