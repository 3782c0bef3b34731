import { describe, expect, it } from 'vitest';
import { makePolicy } from '../../../src/config.js';
import { LogVoids } from '../../../src/gateway/runtime/log-voids.js';
import { sendVoids } from '../../../src/gateway/runtime/void-call.js';
import { MemoryStore } from '../../../src/store/memory-store.js';
import { TestAsyncStore } from '../../support/async-memory-store.js';

/**
 * The voidLogAdmits call of a sync round (issue 32: Stryker found it reached only through whole
 * central-log gateways). A call that landed stops counting once taken back.
 */
const policy = makePolicy(5, 60_000);
const call = { gatewayId: 'g', policy, timeoutMs: 50 };

describe('sendVoids', () => {
  it('takes back every pending void in one call: a call that landed stops counting', async () => {
    const memory = new MemoryStore();
    const store = new TestAsyncStore(memory);
    // two calls of gateway g landed, then timed out at the gateway
    expect(memory.logAdmit({ key: 'k', policy, cost: 2, call: { gatewayId: 'g', seq: 1 } }, 0).allowed).toBe(
      true,
    );
    expect(memory.logAdmit({ key: 'j', policy, cost: 1, call: { gatewayId: 'g', seq: 2 } }, 0).allowed).toBe(
      true,
    );
    const voids = new LogVoids(10);
    voids.add({ key: 'k', seq: 1, cost: 2 });
    voids.add({ key: 'j', seq: 2, cost: 1 });
    expect(await sendVoids(store, voids, call, 10)).toBeNull();
    expect(store.calls.voidLogAdmits).toBe(1);
    expect(voids.pending).toBe(0);
    expect(voids.voided).toBe(2);
    // the store counts neither: k has all of L again
    expect(memory.logAdmit({ key: 'k', policy, cost: 5 }, 20).allowed).toBe(true);
  });

  it('a store that does not answer keeps them for the next round, and says which and why', async () => {
    const store = new TestAsyncStore(new MemoryStore());
    store.mode = 'fail';
    const voids = new LogVoids(10);
    voids.add({ key: 'k', seq: 1, cost: 2 });
    const failed = await sendVoids(store, voids, call, 10);
    expect(failed).toMatchObject({ key: 'k', cause: expect.any(String) });
    expect(failed?.error).toBeInstanceOf(Error);
    expect(voids.pending).toBe(1);
    expect(voids.voided).toBe(0);
  });
});
