// Instructions (valgrind callgrind Ir) Redis spends per key-sync on a local 3-master Cluster against
// one server, summed over the nodes: the A/B of cluster-sync.mjs that the machine's load cannot blur
// (its INFO cpu figures moved ±30 % from trial to trial at load 10). Starts one redis-server and
// three cluster-enabled ones, each under callgrind (hz 1, so their timers add little), joins the
// three with redis-cli; per setup syncs KEYS keys (3 admits each, read back) twice untimed, zeroes
// every server's counters, syncs REPS times and dumps them. Setups: one server, then the cluster once
// per keyGroups value in GROUPS (decision 0011; 'per-key' is the naming before, a tag per key).
// An expiry margin of an hour: with the default 5 s, whether the measured syncs moved the keys'
// expiry (a PEXPIRE of the log and one of the meta hash, ~13 % of a key-sync) hung on how long
// valgrind took, and one side of an A/B could pay them while the other did not.
// The dumps stay in /tmp/cluster-ir-PID/NAME/cg.out.N (N odd: a setup's syncs, even: its idle
// spell; the probe prints the directory) for callgrind_annotate.
// User-space instructions only: the kernel's share of networking (more, smaller reads and writes on
// three servers) is not in them; cluster-sync.mjs's INFO cpu is.
// Usage: npm run build && node bench/probes/cluster-sync-ir.mjs [KEYS=2000] [REPS=2] [DIST=dist] [GROUPS=256,per-key]
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';

const run = promisify(execFile);
const KEYS = Number(process.argv[2] ?? 2000);
const REPS = Number(process.argv[3] ?? 2);
const DIST = pathToFileURL(resolve(process.argv[4] ?? 'dist')).href;
const GROUPS = (process.argv[5] ?? '256,per-key').split(',').map((g) => (g === 'per-key' ? g : Number(g)));
const { freePort } = await import(`${DIST}/fleet/redis-server.js`);
const { makePolicy } = await import(`${DIST}/index.js`);
const { RedisStore } = await import(`${DIST}/store/redis/index.js`);

/** A redis-server under callgrind, its dumps in a directory of its own. */
async function startUnderCallgrind(name, args = []) {
  const port = await freePort();
  const dir = `/tmp/cluster-ir-${process.pid}/${name}`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${dir}/cg.out`,
      'redis-server',
      '--port',
      String(port),
      '--save',
      '',
      '--appendonly',
      'no',
      '--bind',
      '127.0.0.1',
      '--hz',
      '1',
      '--dir',
      dir,
      ...args,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const probe = new Redis({ host: '127.0.0.1', port, retryStrategy: () => 200, maxRetriesPerRequest: null });
  await probe.ping();
  probe.disconnect();
  return { name, port, host: '127.0.0.1', dir, child, dumps: 0 };
}

/** Instructions of `s` in its latest dump. */
function lastDumpIr(s) {
  const files = readdirSync(s.dir).filter((x) => x.startsWith('cg.out.'));
  const latest = files.sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop())).pop();
  const text = readFileSync(`${s.dir}/${latest}`, 'utf8');
  return Number(/^(?:summary|totals): (\d+)/m.exec(text)[1]);
}

const single = await startUnderCallgrind('single');
const nodes = [];
for (let i = 0; i < 3; i++) {
  const bus = await freePort();
  nodes.push(
    await startUnderCallgrind(`node-${i}`, [
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      'nodes.conf',
      '--cluster-port',
      String(bus),
    ]),
  );
}
const all = [single, ...nodes];
console.log(`callgrind dumps in /tmp/cluster-ir-${process.pid}/`);
try {
  await run(
    'redis-cli',
    [
      '--cluster',
      'create',
      ...nodes.map((n) => `${n.host}:${n.port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ],
    { timeout: 120_000 },
  );
  for (const deadline = Date.now() + 120_000; ; ) {
    const ok = await Promise.all(
      nodes.map(async (n) =>
        /cluster_state:ok/.test((await run('redis-cli', ['-p', String(n.port), 'cluster', 'info'])).stdout),
      ),
    );
    if (ok.every(Boolean)) break;
    if (Date.now() > deadline) throw new Error('cluster not ok');
    await new Promise((r) => setTimeout(r, 200));
  }
  // a window of an hour: under valgrind a sync of 10,000 keys takes tens of seconds, and with a minute
  // the warm-up's admits aged out by the measured syncs, which then took the general path
  const policy = makePolicy(1_000_000_000, 3_600_000, 'sliding');
  const measure = async (name, client, servers, opts) => {
    const store = new RedisStore(client, { prefix: `ir:${name}:`, expiryMarginMs: 3_600_000, ...opts });
    let seq = 0;
    const sync = () => {
      const t = Date.now();
      const entries = Array.from({ length: KEYS }, (_, i) => ({
        key: `user:${i}`,
        admits: [t - 2, t - 1, t],
        read: true,
        release: false,
        ask: 0,
      }));
      return store.sync(
        { gatewayId: 'gw-0', seq: ++seq, policy, leaseTtlMs: 3000, horizonMs: 4000, entries },
        t,
      );
    };
    await sync();
    await sync();
    for (const s of servers) execFileSync('callgrind_control', ['-z', String(s.child.pid)]);
    const t0 = performance.now();
    for (let r = 0; r < REPS; r++) await sync();
    const sec = (performance.now() - t0) / 1000;
    for (const s of servers) execFileSync('callgrind_control', ['-d', String(s.child.pid)]);
    const ir = servers.reduce((sum, s) => sum + lastDumpIr(s), 0);
    const perKey = ir / (KEYS * REPS);
    // what the servers do idle over as long (timers, the cluster bus), measured after the syncs
    for (const s of servers) execFileSync('callgrind_control', ['-z', String(s.child.pid)]);
    await new Promise((r) => setTimeout(r, sec * 1000));
    for (const s of servers) execFileSync('callgrind_control', ['-d', String(s.child.pid)]);
    const idle = servers.reduce((sum, s) => sum + lastDumpIr(s), 0) / (KEYS * REPS);
    console.log(
      `${name.padEnd(20)} ${Math.round(perKey).toLocaleString('en')} Ir per key-sync (summed over ${servers.length} server${servers.length > 1 ? 's' : ''}, ${sec.toFixed(1)} s), ` +
        `of which as much as idle for as long: ${Math.round(idle).toLocaleString('en')}`,
    );
    return perKey;
  };
  const sClient = new Redis({ host: single.host, port: single.port, maxRetriesPerRequest: null });
  const one = await measure('1 server', sClient, [single], {});
  sClient.disconnect();
  const cClient = new Cluster(
    nodes.map((n) => ({ host: n.host, port: n.port })),
    { redisOptions: { maxRetriesPerRequest: null } },
  );
  await new Promise((r) => cClient.once('ready', r));
  for (const g of GROUPS) {
    const x = await measure(`3 masters, ${g}`, cClient, nodes, { keyGroups: g });
    console.log(`  / 1 server: ${(x / one).toFixed(3)}× (KEYS=${KEYS}, REPS=${REPS})`);
  }
  cClient.disconnect();
} finally {
  for (const s of all) s.child.kill('SIGTERM');
}
