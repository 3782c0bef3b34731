import { describe, expect, it } from 'vitest';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import type { AsyncStore, LogAdmitReply } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * Issue 17, item 12: central-log's `decision.at` was the gateway's clock after the reply, not the
 * store's stamp of the admit. The fleet runner judges windows on `at`, so a reply that came back
 * slowly moved the admit later than the store counts it, and the runner saw windows over L that
 * never happened (35–44 against a true 20). `at` is now the stamp the store admitted it with.
 */
describe('regression: central-log decision.at is the store stamp', () => {
  it('a reply that comes back 300 ms after the store applied it keeps the store time', async () => {
    let local = 10_000;
    const memory = new MemoryStore();
    const storeNow = () => local + 2_000; // the store's clock runs 2 s ahead of this gateway's
    const stamps: number[] = [];
    const store: AsyncStore = {
      clock: 'store',
      async logAdmit(req): Promise<LogAdmitReply> {
        const r = memory.logAdmit(req, storeNow());
        stamps.push(r.now);
        // the reply travels back slowly: the local clock moves on before the gateway sees it
        local += 300;
        return r;
      },
      sync: async (req) => memory.sync(req, storeNow()),
      ask: async (req) => memory.ask(req, storeNow()),
      voidLogAdmits: async (g, p, v) => memory.voidLogAdmits(g, p, v, storeNow()),
    };
    const gw = createAsyncGateway({
      id: 'gw-1',
      design: 'central-log',
      limit: 10,
      windowMs: 60_000,
      gateways: 1,
      syncMs: 1_000,
      storeTimeoutMs: 60_000,
      store,
      clock: () => local,
    });
    const ats: number[] = [];
    for (let i = 0; i < 4; i++) {
      const d = await gw.admitNow('k');
      expect(d.allowed).toBe(true);
      ats.push(d.at ?? Number.NaN);
    }
    expect(ats).toEqual(stamps);
    // and the decision clock never ran behind a stamp it has seen
    expect(gw.now()).toBeGreaterThanOrEqual(stamps[stamps.length - 1]);
  });
});
