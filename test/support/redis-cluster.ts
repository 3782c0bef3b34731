import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort, type RedisServer, startRedisServer } from './redis-server.js';

const run = promisify(execFile);

/** A real local Redis Cluster of masters only, each its own redis-server process. */
export interface RedisClusterHandle {
  readonly nodes: RedisServer[];
  /** host/port pairs for ioredis's Cluster constructor. */
  readonly startup: { host: string; port: number }[];
  stop(): Promise<void>;
}

/**
 * Starts `masters` cluster-enabled servers on free loopback ports (each with its own bus port),
 * joins them with `redis-cli --cluster create` and waits until every node reports cluster_state:ok.
 */
export async function startRedisCluster(masters = 3): Promise<RedisClusterHandle> {
  const nodes: RedisServer[] = [];
  try {
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
            '--cluster-node-timeout',
            '5000',
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
      { timeout: 30_000 },
    );
    await waitForOk(nodes);
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

async function waitForOk(nodes: RedisServer[], timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = await Promise.all(
      nodes.map(async (n) => {
        const { stdout } = await run('redis-cli', ['-h', n.host, '-p', String(n.port), 'cluster', 'info']);
        return /cluster_state:ok/.test(stdout);
      }),
    );
    if (states.every(Boolean)) return;
    if (Date.now() > deadline) throw new Error('the test cluster did not reach cluster_state:ok');
    await new Promise((r) => setTimeout(r, 50));
  }
}
