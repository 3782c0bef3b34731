/**
 * The replay's limiters (src/replay/run/replay-limiter.ts): a synced key made without Retry-After
 * (SyncedKey.withoutRetryAfter: its pushes past the horizon not kept) decides and syncs as one made
 * with it, refuses a Retry-After question, and keeps them where reads on request decide on them
 * (without the replies' Retry-After bounds).
 */
import { describe, expect, it } from 'vitest';
import type { DesignId } from '../../src/config.js';
import { DESIGNS } from '../../src/designs/index.js';
import type { FleetParams, KeyLimiter } from '../../src/designs/key-limiter.js';
import { DROP, syncEntryOf } from '../../src/designs/key-steps.js';
import type { SyncedKey } from '../../src/designs/synced.js';
import { replayLimiter } from '../../src/replay/run/replay-limiter.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { DELTA, draws, params, SYNCED, W } from '../support/replay-limiter-fixture.js';

/**
 * Key k's limiters, one per gateway, over a stretch of requests and syncs against one store, from
 * `t0` for `ms`: the verdicts, each sync's entry and reply (as text), in order.
 */
function drive(
  lims: KeyLimiter[],
  seed: number,
  t0: number,
  ms: number,
  store = new MemoryStore(),
): string[] {
  const out: string[] = [];
  const next = draws(seed);
  const seq = lims.map(() => 0);
  for (let t = t0; t < t0 + ms; t += 7) {
    const g = Math.floor(next() * lims.length);
    // bursts then quiet: the store's count goes near L and back to 0
    if (next() < (Math.floor(t / 3000) % 2 === 0 ? 0.4 : 0.02)) out.push(`${t} ${g} ${lims[g].decide(t, 1)}`);
    if (t % DELTA !== 0) continue;
    for (let h = 0; h < lims.length; h++) {
      const e = syncEntryOf(lims[h], 'k', t);
      if (e === null || e === DROP) {
        out.push(`${t} ${h} ${e === null ? 'none' : 'idle'}`);
        continue;
      }
      const req = {
        gatewayId: `g${h}`,
        seq: ++seq[h],
        policy: params(false).policy,
        leaseTtlMs: 3 * DELTA,
        horizonMs: 4 * DELTA,
        entries: [e],
      };
      const reply = store.sync(req, t).replies[0];
      out.push(`${t} ${h} ${JSON.stringify(e)} ${JSON.stringify(reply)}`);
      lims[h].applySync(reply, t);
    }
  }
  return out;
}

/** Three gateways' limiters of `design` for one key, made without Retry-After if `without`. */
function threeKeys(design: DesignId, p: FleetParams, without: boolean): SyncedKey[] {
  return [0, 1, 2].map(() => {
    const lim = DESIGNS[design].create(p, 0) as SyncedKey;
    if (without) lim.withoutRetryAfter();
    return lim;
  });
}

describe('the replay’s limiters (replayLimiter)', () => {
  for (const design of SYNCED)
    it(`${design}: made without Retry-After, it decides and syncs as with it; asked one, it throws`, () => {
      const p = params(false);
      const made = (without: boolean) => threeKeys(design, p, without);
      const without = made(true);
      const a = drive(without, 3, 0, 6 * W);
      expect(a).toEqual(drive(made(false), 3, 0, 6 * W));
      expect(a.filter((s) => s.endsWith(' 1')).length).toBeGreaterThan(20);
      expect(() => without[0].retryAt(6 * W, 1, 6 * W + DELTA)).toThrow(/Retry-After/);
      expect(() => without[0].retryNotBefore(6 * W, 1, 6 * W + DELTA)).toThrow(/Retry-After/);
    });

  for (const design of SYNCED)
    it(`${design}: made without Retry-After, it makes none of the state only Retry-After reads`, () => {
      // the replay makes a key for nearly every line of a log of quiet keys: the Retry-After state
      // (SyncedKey.retry, a RetryPart) and the reply's bounds (below, past) are made and held only for it
      const p = params(false);
      const made = (without: boolean) => threeKeys(design, p, without);
      const state = (lims: SyncedKey[]) =>
        lims.map((l) => [Reflect.get(l, 'retry'), Reflect.get(l, 'below'), Reflect.get(l, 'past')]);
      // stopped in a burst, at L: the replies told bounds (belowLimitAt, pastHorizonAt)
      const without = made(true);
      drive(without, 3, 0, 3 * W);
      expect(
        state(without)
          .flat()
          .every((v) => v === null),
      ).toBe(true);
      const withIt = made(false);
      drive(withIt, 3, 0, 3 * W);
      expect(state(withIt).every(([retry]) => retry !== null)).toBe(true);
      expect(state(withIt).some(([, below, past]) => below !== null || past !== null)).toBe(true);
    });

  it('with reads on request it keeps its late pushes: its view lists them (listLate)', () => {
    const p = params(true);
    const made = (without: boolean) => threeKeys('shared-counter', p, without);
    const lims = made(true);
    expect(() => lims[0].retryAt(0, 1, DELTA)).toThrow(/Retry-After/);
    const a = drive(lims, 9, 0, 6 * W);
    expect(a).toEqual(drive(made(false), 9, 0, 6 * W));
  });

  it('with reads on request it keeps none of the replies’ Retry-After bounds', () => {
    // stopped in a burst, at L: the replies told bounds (belowLimitAt, pastHorizonAt), which only
    // Retry-After reads
    const bounds = (lims: SyncedKey[]) => lims.map((l) => [Reflect.get(l, 'below'), Reflect.get(l, 'past')]);
    const without = threeKeys('shared-counter', params(true), true);
    drive(without, 9, 0, 3 * W);
    expect(
      bounds(without)
        .flat()
        .every((v) => v === null),
    ).toBe(true);
    const withIt = threeKeys('shared-counter', params(true), false);
    drive(withIt, 9, 0, 3 * W);
    expect(
      bounds(withIt)
        .flat()
        .some((v) => v !== null),
    ).toBe(true);
  });

  it('the replay makes its synced keys without Retry-After, where reads follow requests too', () => {
    for (const design of SYNCED) {
      expect(() => replayLimiter(DESIGNS[design], params(false), 0).retryAt(0, 1, DELTA)).toThrow(
        /Retry-After/,
      );
      expect(() => replayLimiter(DESIGNS[design], params(true), 0).retryAt(0, 1, DELTA)).toThrow(
        /Retry-After/,
      );
    }
    expect(replayLimiter(DESIGNS['central-log'], params(false), 0).design).toBe('central-log');
  });
});
