// Instructions (valgrind callgrind Ir) a redis-server spends per key-sync of RedisStore, for a build:
// an A/B of script changes that the machine's load cannot blur as it blurs CPU time (same build,
// two runs: within ~5 %). Starts redis-server under callgrind on PORT, syncs KEYS keys (3 admits
// each, read back) twice untimed, zeroes the counters, syncs REPS times and dumps them.
// Environment: GW=K, the syncs come from K gateways in turn, so each key's meta hash holds K seq
// fields; W=ms, the window (60 s: nothing ages, sync.lua's plain path); STEP=ms, time moves STEP per
// sync on the caller's clock (the store's clock otherwise), so with a small W each sync ages runs out
// (the general path); CHUNK=N, the store's chunkKeys (keys per script call; 100 by default); LIMIT=L,
// the policy's limit (a billion by default: never reached; LIMIT=2 puts every key over it, so each
// read answers SyncReply.belowLimitAt); MARGIN=ms, the store's expiryMarginMs (5 s by default: whether
// the measured syncs then move the keys' expiry, a PEXPIRE of the log and one of the meta hash, hangs
// on how long valgrind takes; MARGIN=3600000 keeps them out of an A/B).
// Usage: npm run build && [GW=1] [W=60000] [STEP=] [CHUNK=] [LIMIT=] [MARGIN=] node bench/probes/sync-redis-ir.mjs [exact|buckets] [DIST=dist] [KEYS=1000] [REPS=2] [PORT=7391]
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';

const [mode = 'exact', distArg = 'dist', nArg = '2000', repsArg = '2', port = '7391'] = process.argv.slice(2);
const dist = pathToFileURL(resolve(distArg)).href;
const { makePolicy } = await import(`${dist}/index.js`);
const { RedisStore } = await import(`${dist}/store/redis/index.js`);
const GW = Number(process.env.GW ?? 1);
const W = Number(process.env.W ?? 60_000);
const STEP = process.env.STEP === undefined ? null : Number(process.env.STEP);
const n = Number(nArg),
  reps = Number(repsArg);
const dir = `/tmp/ir-${port}`;
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir);
const child = spawn(
  'valgrind',
  [
    '--tool=callgrind',
    `--callgrind-out-file=${dir}/cg.out`,
    'redis-server',
    '--port',
    port,
    '--save',
    '',
    '--appendonly',
    'no',
    '--bind',
    '127.0.0.1',
  ],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
const client = new Redis({
  host: '127.0.0.1',
  port: Number(port),
  retryStrategy: () => 200,
  maxRetriesPerRequest: null,
});
await client.ping();
const CHUNK = process.env.CHUNK === undefined ? null : Number(process.env.CHUNK);
const store = new RedisStore(client, {
  mode,
  ...(STEP === null ? {} : { clock: 'caller', expiryMarginMs: 600_000 }),
  ...(process.env.MARGIN === undefined ? {} : { expiryMarginMs: Number(process.env.MARGIN) }),
  // every key's admits fit the call (chunkAdmits would close it first)
  ...(CHUNK === null ? {} : { chunkKeys: CHUNK, chunkAdmits: 100 * CHUNK }),
});
const policy = makePolicy(Number(process.env.LIMIT ?? 1_000_000_000), W, 'sliding');
const T0 = Date.now();
// after seq has moved for this sync (its field comes first in the request)
const now = () => (STEP === null ? Date.now() : T0 + STEP * seq);
let seq = 0;
const ent = (t) =>
  Array.from({ length: n }, (_, i) => ({
    key: `user:${i}`,
    admits: [t - 2, t - 1, t],
    read: true,
    release: false,
    ask: 0,
  }));
const sync = () =>
  store.sync(
    {
      gatewayId: `gw-${seq % GW}`,
      seq: ++seq,
      policy,
      leaseTtlMs: 3000,
      horizonMs: 4000,
      entries: ent(now()),
    },
    now(),
  );
await sync();
await sync();
execFileSync('callgrind_control', ['-z', String(child.pid)]);
for (let r = 0; r < reps; r++) await sync();
execFileSync('callgrind_control', ['-d', String(child.pid)]);
client.disconnect();
child.kill('SIGTERM');
const f = readdirSync(dir)
  .filter((x) => x.startsWith('cg.out.'))
  .sort()[0];
const text = readFileSync(`${dir}/${f}`, 'utf8');
const ir = Number(/^(?:summary|totals): (\d+)/m.exec(text)[1]);
console.log(`${distArg} ${mode}: ${(ir / (n * reps)).toFixed(0)} Ir per key-sync`);
