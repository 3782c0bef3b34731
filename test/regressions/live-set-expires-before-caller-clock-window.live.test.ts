// Bug: live.lua set the policy's live set to expire exactly at its furthest member's expiry, counted
// from the beat's now. PEXPIRE runs on Redis's own clock; with `clock: 'caller'` the scores are on the
// caller's, so a caller's clock behind Redis's (or, in the heartbeat contract's property, a test's
// clock that advances slower than real time under load) saw the set vanish while its members' windows
// still held: a gateway counted alone, K too small. The set now lives a minute past that.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Policy } from '../../src/config.js';
import { type SingleFixture, singleServer } from '../support/redis-fixtures.js';

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

it("a live member stays counted while its window holds on the caller's clock, whatever Redis's clock did", async () => {
  const store = fx.store({ clock: 'caller' });
  const policy: Policy = { limit: 10, windowMs: 60_000, windowKind: 'sliding' };
  expect((await store.heartbeat({ gatewayId: 'a', policy, liveWithinMs: 50 }, 1000)).live).toBe(1);
  // 150 ms of Redis's time pass, 10 ms of the caller's: a beat at 1000 + 50 is still live at 1010
  await new Promise((r) => setTimeout(r, 150));
  expect((await store.heartbeat({ gatewayId: 'b', policy, liveWithinMs: 50 }, 1010)).live).toBe(2);
});
