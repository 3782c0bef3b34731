import type { Cluster } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { clusterReady, gatewayCluster, type NodeConn, nodeConns } from './cluster-fleet.js';
import { type RedisClusterHandle, startRedisCluster } from './redis-cluster.js';

/** What useClusterNodes sets up: filled in by its beforeAll, so read the fields inside tests only. */
export interface ClusterNodes {
  cluster: RedisClusterHandle;
  /** A direct connection to each node (CLUSTER, INFO, MIGRATE on one node). */
  nodes: NodeConn[];
  /** A gateway's Cluster client (gatewayCluster), ready; only with `clientTimeoutMs`. */
  client: Cluster;
}

/**
 * The set-up every cluster test that acts on single nodes shares (failover, slot migration, calls
 * across slots): a local cluster of three masters, `replicas` each, started once for the file, a
 * connection to each node, and with `clientTimeoutMs` a gateway's Cluster client; all of it closed
 * after the file's tests.
 */
export function useClusterNodes(o: { replicas?: number; clientTimeoutMs?: number } = {}): ClusterNodes {
  const fx = {} as ClusterNodes;
  beforeAll(async () => {
    fx.cluster = await startRedisCluster(3, { replicas: o.replicas ?? 0 });
    fx.nodes = await nodeConns(fx.cluster);
    if (o.clientTimeoutMs !== undefined) {
      fx.client = await clusterReady(gatewayCluster(fx.cluster, o.clientTimeoutMs));
    }
  });
  afterAll(async () => {
    fx.client?.disconnect();
    for (const n of fx.nodes ?? []) n.conn.disconnect();
    await fx.cluster?.stop();
  });
  return fx;
}
