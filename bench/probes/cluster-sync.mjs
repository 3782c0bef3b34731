// Key-syncs per second through RedisStore on a local 3-master Redis Cluster against one master, with
// the same client code and the same key set (issue 19: "at least 2.5× one master"). Each sync pushes
// one admit per key and reads its window back (a shared-counter sync), exact mode; C syncs of
// different gateways run at once (C stores on C connections, one process), so Redis rather than one
// sync's round trip is the limit. Reported per setup: key-syncs/s (median over REPS rounds), script
// calls per sync (a cluster sync is cut by slot: keys of one script call must share one), Redis CPU
// per key-sync (INFO commandstats, summed over the nodes), and this process's CPU per key-sync; and
// one master with one key per script call (chunkKeys 1), about the cluster's cut, to part the cost
// of the split by slot from the gain of the sharding. Redis CPU is reported twice: the commands'
// time (INFO commandstats: wall time inside the command, which a preempted server stretches on a
// busy machine) and the servers' CPU time (INFO cpu, used_cpu_user + used_cpu_sys, summed over the
// nodes: everything the servers did, networking included). DIST names the build (A/B of a change).
// The cluster runs once per keyGroups value in GROUPS (comma-separated; decision 0011: 256 puts the
// keys in 256 hash tags, so one script call carries a group's keys; 'per-key' is the naming before,
// a tag per key; 'default' leaves the option unset, for a build without it), and the last lines give
// each one's Redis CPU per key-sync (INFO cpu) over one master's. The setups are measured in turn,
// TRIALS times (one master, then each cluster setup, again and again), so that a load on the machine
// that comes and goes weighs on them alike; each trial's ratio is over the same trial's one master,
// and the last lines give min/median/max over the trials. One master with one key per call is
// measured in the first trial only. Each setup's servers also spend CPU with no client at all (their
// cron, and a cluster's bus pings: a cost per second, not per key-sync, measured with no client for
// IDLE_MS before the trials): the "less idle" figures take it off, as bench/sidecar.ts does.
// Usage: npm run build && node bench/probes/cluster-sync.mjs [KEYS=10000] [C=4] [REPS=5] [DIST=dist] [GROUPS=256,per-key] [TRIALS=3]
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';

const run = promisify(execFile);
const KEYS = Number(process.argv[2] ?? 10_000);
const C = Number(process.argv[3] ?? 4);
const REPS = Number(process.argv[4] ?? 5);
const DIST = pathToFileURL(resolve(process.argv[5] ?? 'dist')).href;
const GROUPS = (process.argv[6] ?? '256,per-key')
  .split(',')
  .map((g) => (g === 'per-key' || g === 'default' ? g : Number(g)));
const TRIALS = Number(process.argv[7] ?? 3);
const { freePort, startRedisServer } = await import(`${DIST}/fleet/redis-server.js`);
const { makePolicy } = await import(`${DIST}/index.js`);
const { RedisStore } = await import(`${DIST}/store/redis/index.js`);

async function startCluster(masters) {
  const nodes = [];
  for (let i = 0; i < masters; i++) {
    const bus = await freePort();
    nodes.push(
      await startRedisServer({
        args: [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${i}.conf`,
          '--cluster-port',
          String(bus),
        ],
      }),
    );
  }
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
    {
      timeout: 30_000,
    },
  );
  for (const deadline = Date.now() + 20_000; ; ) {
    const ok = await Promise.all(
      nodes.map(async (n) =>
        /cluster_state:ok/.test((await run('redis-cli', ['-p', String(n.port), 'cluster', 'info'])).stdout),
      ),
    );
    if (ok.every(Boolean)) break;
    if (Date.now() > deadline) throw new Error('cluster not ok');
    await new Promise((r) => setTimeout(r, 50));
  }
  return nodes;
}

async function evalshaStats(conns) {
  let calls = 0;
  let usec = 0;
  for (const c of conns) {
    const m = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(await c.info('commandstats'));
    if (m !== null) {
      calls += Number(m[1]);
      usec += Number(m[2]);
    }
  }
  return { calls, usec };
}

/** Seconds of CPU the servers used so far (user + sys, summed), and of it in the kernel (sys). */
async function serverCpu(conns) {
  let s = 0;
  let sys = 0;
  for (const c of conns) {
    const info = await c.info('cpu');
    const k = Number(/used_cpu_sys:([\d.]+)/.exec(info)[1]);
    s += Number(/used_cpu_user:([\d.]+)/.exec(info)[1]) + k;
    sys += k;
  }
  return { s, sys };
}

const IDLE_MS = 2000;

/** The servers' CPU with no client, in seconds per second (summed over `conns`' servers). */
async function idleCpuPerSec(conns) {
  const a = await serverCpu(conns);
  const t = performance.now();
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const b = await serverCpu(conns);
  return (b.s - a.s) / ((performance.now() - t) / 1000);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** C gateways syncing the same KEYS keys, one store each on `clients` (one per gateway). */
async function setup(name, clients, conns, storeOpts = {}) {
  // a window of an hour: nothing ages out between trials, so every setup's syncs take the same path
  const policy = makePolicy(1_000_000_000, 3_600_000, 'sliding');
  const stores = clients.map((c) => new RedisStore(c, { prefix: `cs:${name}:`, ...storeOpts }));
  const seqs = stores.map(() => 0);
  const round = () =>
    Promise.all(
      stores.map((s, g) => {
        const now = Date.now();
        const entries = [];
        for (let i = 0; i < KEYS; i++)
          entries.push({ key: `user:${i}`, admits: [now], read: true, release: false, ask: 0 });
        return s.sync(
          { gatewayId: `gw-${g}`, seq: ++seqs[g], policy, leaseTtlMs: 3000, horizonMs: 4000, entries },
          now,
        );
      }),
    );
  await round(); // creates the keys, loads the scripts
  return { name, conns, round };
}

/** The setup's syncs at once, REPS rounds. */
async function measure({ name, conns, round }, idlePerSec) {
  for (const c of conns) await c.config('RESETSTAT');
  const cpu0 = process.cpuUsage();
  const server0 = await serverCpu(conns);
  const rates = [];
  const wall0 = performance.now();
  for (let r = 0; r < REPS; r++) {
    const t = performance.now();
    await round();
    rates.push((C * KEYS) / ((performance.now() - t) / 1000));
  }
  const cpu = process.cpuUsage(cpu0);
  const server1 = await serverCpu(conns);
  const serverSec = server1.s - server0.s;
  const sysSec = server1.sys - server0.sys;
  const wallSec = (performance.now() - wall0) / 1000;
  const st = await evalshaStats(conns);
  const keySyncs = REPS * C * KEYS;
  const out = {
    name,
    keySyncsPerSec: median(rates),
    callsPerSync: st.calls / (REPS * C),
    redisUsPerKey: st.usec / keySyncs,
    serverCpuUsPerKey: (serverSec * 1e6) / keySyncs,
    serverBusyUsPerKey: (Math.max(0, serverSec - idlePerSec * wallSec) * 1e6) / keySyncs,
    serverSysUsPerKey: (sysSec * 1e6) / keySyncs,
    serverCores: serverSec / wallSec,
    clientCores: (cpu.user + cpu.system) / 1e6 / wallSec,
    clientUsPerKey: (cpu.user + cpu.system) / keySyncs,
  };
  console.log(
    `${name.padEnd(21)} ${Math.round(out.keySyncsPerSec).toLocaleString('en')} key-syncs/s (median of ${REPS}, min ${Math.round(Math.min(...rates)).toLocaleString('en')}, max ${Math.round(Math.max(...rates)).toLocaleString('en')}); ` +
      `${out.callsPerSync.toFixed(0)} script calls per sync of ${KEYS} keys; Redis ${out.redisUsPerKey.toFixed(1)} µs/key in commands, ${out.serverCpuUsPerKey.toFixed(1)} µs/key CPU (all nodes; ${out.serverSysUsPerKey.toFixed(1)} of it sys; ${out.serverBusyUsPerKey.toFixed(1)} less idle); this process ${out.clientUsPerKey.toFixed(1)} µs/key; ` +
      `cores busy: servers ${out.serverCores.toFixed(2)}, this process ${out.clientCores.toFixed(2)}`,
  );
  return out;
}

const single = await startRedisServer();
const nodes = await startCluster(3);
const conns = [];
try {
  const sConns = [new Redis(single.port, single.host)];
  const sClients = Array.from({ length: C }, () => new Redis(single.port, single.host));
  const cConns = nodes.map((n) => new Redis(n.port, n.host));
  const cClients = Array.from(
    { length: C },
    () => new Cluster(nodes.map((n) => ({ host: n.host, port: n.port }))),
  );
  conns.push(...sConns, ...sClients, ...cConns, ...cClients);
  await Promise.all(cClients.map((c) => new Promise((r) => c.once('ready', r))));
  const one = await setup('1 master', sClients, sConns);
  // the same server with one key per script call, about as the cluster cut a sync by slot before
  // key groups: the per-call cost of the split, without the sharding
  const oneByKey = await setup('1 master, chunkKeys 1', sClients, sConns, { chunkKeys: 1 });
  const threes = [];
  for (const g of GROUPS)
    threes.push(await setup(`3 masters, ${g}`, cClients, cConns, g === 'default' ? {} : { keyGroups: g }));
  const cores = (await import('node:os')).cpus().length;
  const idle = { one: await idleCpuPerSec(sConns), cluster: await idleCpuPerSec(cConns) };
  console.log(
    `servers' CPU with no client: 1 master ${(idle.one * 1000).toFixed(1)} ms/s, 3 masters ${(idle.cluster * 1000).toFixed(1)} ms/s`,
  );
  const busy = new Map([one, ...threes].map((s) => [s.name, []]));
  const cpu = new Map([one, ...threes].map((s) => [s.name, []]));
  const sys = new Map([one, ...threes].map((s) => [s.name, []]));
  const ratios = new Map(threes.map((s) => [s.name, { cpu: [], busy: [], commands: [], rate: [] }]));
  for (let t = 0; t < TRIALS; t++) {
    console.log(
      `trial ${t + 1} of ${TRIALS}, load average ${(await import('node:os')).loadavg()[0].toFixed(1)}`,
    );
    const o = await measure(one, idle.one);
    cpu.get(one.name).push(o.serverCpuUsPerKey);
    busy.get(one.name).push(o.serverBusyUsPerKey);
    sys.get(one.name).push(o.serverSysUsPerKey);
    if (t === 0) await measure(oneByKey, idle.one);
    for (const s of threes) {
      const x = await measure(s, idle.cluster);
      cpu.get(s.name).push(x.serverCpuUsPerKey);
      busy.get(s.name).push(x.serverBusyUsPerKey);
      sys.get(s.name).push(x.serverSysUsPerKey);
      const r = ratios.get(s.name);
      r.cpu.push(x.serverCpuUsPerKey / o.serverCpuUsPerKey);
      r.busy.push(x.serverBusyUsPerKey / o.serverBusyUsPerKey);
      r.commands.push(x.redisUsPerKey / o.redisUsPerKey);
      r.rate.push(x.keySyncsPerSec / o.keySyncsPerSec);
    }
  }
  const mmm = (xs, d = 2) =>
    `${Math.min(...xs).toFixed(d)} / ${median(xs).toFixed(d)} / ${Math.max(...xs).toFixed(d)}`;
  console.log(
    `min / median / max over ${TRIALS} trials (KEYS=${KEYS}, C=${C}, REPS=${REPS}, ${cores} cores):`,
  );
  for (const [name, xs] of cpu)
    console.log(
      `${name.padEnd(21)} Redis CPU µs per key-sync ${mmm(xs, 1)}; of it sys ${mmm(sys.get(name), 1)}; less idle ${mmm(busy.get(name), 1)}`,
    );
  for (const [name, r] of ratios)
    console.log(
      `${name} / 1 master: Redis CPU per key-sync ${mmm(r.cpu)}×, less idle ${mmm(r.busy)}×; in commands ${mmm(r.commands)}×; key-syncs/s ${mmm(r.rate)}×`,
    );
} finally {
  for (const c of conns) c.disconnect();
  await Promise.all([single.stop(), ...nodes.map((n) => n.stop())]);
}
