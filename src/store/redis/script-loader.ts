// Keeps a client's scripts loaded (SCRIPT LOAD) on every connection and cluster master, so EVALSHA
// finds them after reconnects, failovers and new nodes.
import type { Redis } from 'ioredis';
import { isCluster, type LuaScript, type RedisClient } from './script.js';

/**
 * Loads a client's scripts (SCRIPT LOAD) before their first use and again whenever a connection
 * becomes ready (a reconnect, a restarted server), on every master of a cluster (a node added, or
 * made master by a failover, when the slot map is refreshed), so that EVALSHA finds them: NOSCRIPT
 * is left to a SCRIPT FLUSH while connected, and the resend (EVAL) covers it. A load is queued on a
 * connection before any call sent after it, so a store's first calls find their scripts. One loader
 * per client, shared by its stores.
 */
class ScriptLoader {
  private readonly scripts = new Map<string, string>();
  private readonly watched = new WeakSet<object>();
  /** Cluster nodes that were sent every script since they last became ready. */
  private readonly loaded = new WeakSet<object>();

  constructor(private readonly client: RedisClient) {
    if (isCluster(client)) {
      client.on('+node', (node: Redis) => this.watch(node));
      client.on('refresh', () => this.loadMasters(false));
      for (const node of client.nodes('all')) this.watch(node);
    } else this.watch(client);
  }

  add(scripts: LuaScript[]): void {
    const fresh: string[] = [];
    for (const s of scripts) {
      if (this.scripts.has(s.sha)) continue;
      this.scripts.set(s.sha, s.source);
      fresh.push(s.source);
    }
    if (fresh.length === 0) return;
    if (isCluster(this.client)) this.loadMasters(true, fresh);
    else if (this.client.status !== 'end') load(this.client, fresh);
  }

  private loadMasters(all: boolean, sources = [...this.scripts.values()]): void {
    if (!isCluster(this.client) || sources.length === 0) return;
    for (const node of this.client.nodes('master')) {
      if (node.status === 'end' || (!all && this.loaded.has(node))) continue;
      this.loaded.add(node);
      load(node, sources);
    }
  }

  private watch(node: Redis): void {
    if (this.watched.has(node)) return;
    this.watched.add(node);
    node.on('ready', () => {
      this.loaded.add(node);
      load(node, [...this.scripts.values()]);
    });
    node.on('close', () => this.loaded.delete(node));
  }
}

/** Fire and forget: a load that fails leaves the resend (EVAL) to cover a NOSCRIPT. */
function load(node: Redis, sources: string[]): void {
  if (sources.length === 0) return;
  for (const source of sources) node.script('LOAD', source).catch(() => {});
}

const loaders = new WeakMap<object, ScriptLoader>();

/** Loads `scripts` on `client` now and after every reconnect (see ScriptLoader). */
export function keepLoaded(client: RedisClient, scripts: LuaScript[]): void {
  let l = loaders.get(client);
  if (l === undefined) loaders.set(client, (l = new ScriptLoader(client)));
  l.add(scripts);
}
