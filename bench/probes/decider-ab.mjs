// CPU ns per request of the middleware's core decider (createRequestDecider) on two builds, run
// alternately in fresh processes (A B A B …), for a "no slower" check of its per-request path: one
// gateway deciding locally (split, memory store), the key from a header by the `key` option, the cost
// from another by `cost`, standard headers; KEYS keys in turn. Usage: npm run build &&
// node bench/probes/decider-ab.mjs REF_DIST [N=2000000] [REPS=5] [KEYS=1000]
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [refArg, nArg = '2000000', repsArg = '5', keysArg = '1000'] = process.argv.slice(2);
if (process.env.DECIDER_AB_CHILD !== undefined) {
  const dist = pathToFileURL(resolve(process.env.DECIDER_AB_CHILD)).href;
  const { createAsyncGateway, MemoryStore } = await import(`${dist}/index.js`);
  const { createRequestDecider } = await import(`${dist}/http/index.js`);
  const n = Number(nArg);
  const keys = Number(keysArg);
  const gw = createAsyncGateway({
    id: 'g',
    design: 'split',
    limit: 1e9,
    windowMs: 60_000,
    gateways: 1,
    syncMs: 1_000,
    store: new MemoryStore(),
  });
  const decide = createRequestDecider(gw, {
    key: (req) => req.headers['x-api-key'],
    cost: (req) => Number(req.headers['x-cost'] ?? 1),
  });
  const reqs = Array.from({ length: keys }, (_, i) => ({
    headers: { 'x-api-key': `key-${i}`, 'x-cost': '1' },
    socket: { remoteAddress: '127.0.0.1' },
  }));
  let sink = 0;
  for (let i = 0; i < n / 4; i++) sink += decide(reqs[i % keys]).status; // warm-up
  // CPU time, not wall: a neighbour on the machine takes the core away, not the work (2 cores shared)
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) sink += decide(reqs[i % keys]).status;
  const c = process.cpuUsage(c0);
  const ns = ((c.user + c.system) * 1000) / n;
  await gw.stop();
  process.stdout.write(`${ns.toFixed(1)} ${sink > 0 ? '' : '!'}\n`);
  process.exit(0);
}
if (refArg === undefined)
  throw new Error('usage: node bench/probes/decider-ab.mjs REF_DIST [N] [REPS] [KEYS]');
const builds = { ref: resolve(refArg), mine: resolve('dist') };
const got = { ref: [], mine: [] };
for (let r = 0; r < Number(repsArg); r++) {
  for (const name of ['ref', 'mine']) {
    const out = execFileSync(
      process.execPath,
      [new URL(import.meta.url).pathname, refArg, nArg, repsArg, keysArg],
      {
        encoding: 'utf8',
        env: { ...process.env, DECIDER_AB_CHILD: builds[name] },
      },
    );
    got[name].push(Number.parseFloat(out));
  }
}
const stats = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return `min ${s[0].toFixed(1)} median ${s[Math.floor(s.length / 2)].toFixed(1)} max ${s.at(-1).toFixed(1)} ns`;
};
for (const name of ['ref', 'mine'])
  console.log(`${name} (${builds[name]}): ${stats(got[name])} per request [${got[name].join(', ')}]`);
