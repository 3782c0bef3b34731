import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SingleFixture, singleServer } from '../support/redis-fixtures.js';
import { monitorOf } from '../support/redis-monitor.js';

// CI run of 2026-12-06 20:26 UTC: test/cluster/group-call.live.test.ts failed opening its MONITOR
// connections with ioredis's "Command queue state error ... Last reply: <time> [...] "info"": another
// connection's ready check (INFO) was logged in the same read as MONITOR's OK, before ioredis had
// marked the connection as monitoring. monitorOf marks it at the OK itself. Here
// other clients keep the server busy (bounded: ≤ 3 s, stops by itself) while monitors open.

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

describe('a MONITOR connection opens while other clients send commands', () => {
  it('30 monitors, each monitoring, under a stream of commands and new connections', async () => {
    const base = fx.client();
    const busy = [fx.client(), fx.client()];
    let stop = false;
    const until = Date.now() + 3000;
    // each loop: a pipeline of PINGs, and a new connection now and then (its ready check is an INFO)
    const pumps = busy.map(async (c) => {
      for (let n = 0; !stop && Date.now() < until; n++) {
        const p = c.pipeline();
        for (let i = 0; i < 20; i++) p.ping();
        await p.exec();
        if (n % 10 === 0) {
          const extra = c.duplicate();
          await extra.ping();
          extra.disconnect();
        }
      }
    });
    const monitors: Redis[] = [];
    try {
      for (let i = 0; i < 30 && Date.now() < until; i++) monitors.push(await monitorOf(base));
    } finally {
      stop = true;
      await Promise.all(pumps);
      for (const m of monitors) m.disconnect();
    }
    expect(monitors.length).toBeGreaterThanOrEqual(10);
    for (const m of monitors) expect(m.status).toBe('monitoring');
  });
});
