import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort, type RedisServer, startRedisServer } from './redis-server.js';

const run = promisify(execFile);

/** A real local Redis Cluster, each node its own redis-server process. */
export interface RedisClusterHandle {
  /** Every node, masters first (as `redis-cli --cluster create` was given them), then replicas. */
  readonly nodes: RedisServer[];
  /** host/port pairs for ioredis's Cluster constructor. */
  readonly startup: { host: string; port: number }[];
  stop(): Promise<void>;
}

export interface RedisClusterOptions {
  /** Replicas per master (`--cluster-replicas`). @default 0 */
  replicas?: number;
  /** cluster-node-timeout, ms: how long a master is unreachable before replicas may fail over. @default 5000 */
  nodeTimeoutMs?: number;
}

/**
 * Starts `masters` cluster-enabled servers (and `replicas` per master) on free loopback ports, each
 * with its own bus port, joins them with `redis-cli --cluster create` and waits until every node
 * reports cluster_state:ok and every replica's link to its master is up.
 */
export async function startRedisCluster(
  masters = 3,
  opts: RedisClusterOptions = {},
): Promise<RedisClusterHandle> {
  const replicas = opts.replicas ?? 0;
  const nodes: RedisServer[] = [];
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
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
            '--cluster-node-timeout',
            String(opts.nodeTimeoutMs ?? 5000),
            // a replica's first sync starts at once, not after the default 5 s wait for more replicas
            '--repl-diskless-sync-delay',
            '0',
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
        String(replicas),
        '--cluster-yes',
      ],
      { timeout: 30_000 },
    );
    await waitForOk(nodes);
    if (replicas > 0) {
      await waitForReplicaLinks(nodes);
      await waitForReplicaViews(nodes, masters * replicas);
    }
  } catch (err) {
    await Promise.all(nodes.map((n) => n.stop()));
    throw err;
  }
  return {
    nodes,
    startup: nodes.map((n) => ({ host: n.host, port: n.port })),
    stop: async () => {
      await Promise.all(nodes.map((n) => n.stop()));
    },
  };
}

async function cli(n: RedisServer, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', n.host, '-p', String(n.port), ...args]);
  return stdout;
}

async function waitForOk(nodes: RedisServer[], timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = await Promise.all(
      nodes.map(async (n) => /cluster_state:ok/.test(await cli(n, 'cluster', 'info'))),
    );
    if (states.every(Boolean)) return;
    if (Date.now() > deadline) throw new Error('the test cluster did not reach cluster_state:ok');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every replica has finished its first sync with its master (master_link_status:up). */
async function waitForReplicaLinks(nodes: RedisServer[], timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = await Promise.all(
      nodes.map(async (n) => {
        const info = await cli(n, 'info', 'replication');
        return /role:master/.test(info) || /master_link_status:up/.test(info);
      }),
    );
    if (states.every(Boolean)) return;
    if (Date.now() > deadline) throw new Error("the test cluster's replicas did not link up");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Every node knows every replica as one (CLUSTER NODES, flag `slave`). Right after `--cluster create`
 * each replica's link is up but the masters still list it without that flag, learnt by gossip a few
 * pings later; a master votes only for a replica it knows as its master's, so a coordinated
 * CLUSTER FAILOVER sent then never gets a vote and lapses after Redis's 5 s (reproduced: a fresh
 * 3 + 3 cluster, masters seeing 0 replicas, no promotion in 12 s; 3 s later, promoted in 100 ms).
 */
async function waitForReplicaViews(
  nodes: RedisServer[],
  expected: number,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await Promise.all(
      nodes.map(async (n) => {
        const lines = (await cli(n, 'cluster', 'nodes')).split('\n');
        return lines.filter((l) => (l.split(' ')[2] ?? '').split(',').includes('slave')).length;
      }),
    );
    if (seen.every((k) => k === expected)) return;
    if (Date.now() > deadline)
      throw new Error(`the test cluster's nodes did not all see its replicas: ${seen.join(', ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
