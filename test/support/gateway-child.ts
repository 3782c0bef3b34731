/**
 * A gateway in a process of its own, for tests that kill it by PID. Usage (JSON on argv[2]):
 *   node --import tsx test/support/gateway-child.ts '{"url":…,"prefix":…,"id":…,"design":…,"limit":…,
 *     "windowMs":…,"gateways":…,"syncMs":…,"rate":…,"key":…,"seconds":…}'
 * It drives its own Poisson requests for `key` at `rate`/s and writes one line per event to stdout:
 *   "A <wall ms>" per admit, "S <wall ms> <unsynced>" per answered sync, "READY" once connected.
 * Lines written to a pipe are written synchronously on Linux, so a SIGKILL loses none already written.
 * A line "freeze" on stdin: at its next admit decided at once (spent from what it holds) it writes
 * "F <wall ms> <unsynced>" after that admit's "A" line and blocks its event loop for good, so no sync
 * can carry the admit: a kill from then on lands right after an admit no sync took.
 */
import { Redis } from 'ioredis';
import type { DesignId } from '../../src/config.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { Random } from '../../src/sim/random.js';
import { RedisStore } from '../../src/store/redis/index.js';

interface Args {
  url: string;
  prefix: string;
  id: string;
  design: DesignId;
  limit: number;
  windowMs: number;
  gateways: number;
  syncMs: number;
  rate: number;
  key: string;
  seconds: number;
}

const a = JSON.parse(process.argv[2]) as Args;
const client = new Redis(a.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
client.on('error', () => {});
client.once('ready', () => {
  const gw = createAsyncGateway({
    id: a.id,
    design: a.design,
    limit: a.limit,
    windowMs: a.windowMs,
    gateways: a.gateways,
    syncMs: a.syncMs,
    store: new RedisStore(client, { prefix: a.prefix }),
  });
  gw.on('sync', () => process.stdout.write(`S ${Date.now()} ${gw.stats().unsyncedAdmits}\n`));
  gw.start();
  process.stdout.write('READY\n');
  let freeze = false;
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (s: string) => {
    if (s.includes('freeze')) freeze = true;
  });
  // the parent's pipe does not keep this process up past its run
  process.stdin.unref();
  const rng = new Random(7);
  const end = Date.now() + a.seconds * 1000;
  let next = Date.now();
  const loop = () => {
    const now = Date.now();
    if (now > end) {
      void gw.stop().then(() => client.disconnect());
      return;
    }
    while (next <= now) {
      next += rng.exponential(a.rate / 1000);
      const d = gw.admitNow(a.key);
      if (!(d instanceof Promise) && d.allowed) {
        process.stdout.write(`A ${Date.now()}\n`);
        if (freeze) {
          process.stdout.write(`F ${Date.now()} ${gw.stats().unsyncedAdmits}\n`);
          // blocks this thread until the kill: no timer, sync or reply runs from here
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
        }
      } else if (d instanceof Promise)
        void d.then((x) => {
          if (x.allowed) process.stdout.write(`A ${Date.now()}\n`);
        });
    }
    setTimeout(loop, 1);
  };
  loop();
});
