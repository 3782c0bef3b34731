import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AsyncGateway } from './async-gateway.js';
import { FAILURE_CAUSES } from './failure-cause.js';

/** The `reason` label of the failure counters (see FailureCause). */
const REASONS =
  'timeout (reachable, but slower than storeTimeoutMs), refused (not reachable: connection refused, closed or not open), error (the store answered with an error)';

/**
 * Prometheus metrics for one or more gateways in one registry, labelled by gateway id. Counters and
 * gauges are read from `gateway.stats()` at scrape time, so the request path only bumps plain numbers;
 * the sync latency histogram is fed by the 'sync' event.
 */
interface Collector {
  gateways: Set<AsyncGateway>;
  latency: Histogram<'gateway'>;
  /** Each gateway's 'sync' listener feeding `latency`, so unregistering can take it off. */
  listeners: Map<AsyncGateway, (e: { latencyMs: number }) => void>;
}

const collectors = new WeakMap<Registry, Collector>();

export interface MetricsOptions {
  /** Prefix of every metric name. Only the first registration on a registry sets it. @default 'fleetlimit_' */
  prefix?: string;
}

/** Registers the gateway's metrics on `registry` (a new one if none is given) and returns the registry. */
export function registerGatewayMetrics(
  gateway: AsyncGateway,
  registry: Registry = new Registry(),
  opts: MetricsOptions = {},
): Registry {
  let c = collectors.get(registry);
  if (c === undefined) {
    c = createCollector(registry, opts.prefix ?? 'fleetlimit_');
    collectors.set(registry, c);
  }
  if (c.gateways.has(gateway)) return registry;
  c.gateways.add(gateway);
  const latency = c.latency;
  const listener = (e: { latencyMs: number }) => latency.observe({ gateway: gateway.id }, e.latencyMs / 1000);
  c.listeners.set(gateway, listener);
  gateway.on('sync', listener);
  return registry;
}

/**
 * Takes a gateway's metrics off `registry` (a gateway the program stopped for good, such as the
 * sidecar's for a limit its reloaded files no longer have): its series leave the next scrape, where
 * they would otherwise stay at their last values for the life of the process.
 */
export function unregisterGatewayMetrics(gateway: AsyncGateway, registry: Registry): void {
  const c = collectors.get(registry);
  if (c === undefined || !c.gateways.delete(gateway)) return;
  const listener = c.listeners.get(gateway);
  if (listener !== undefined) gateway.off('sync', listener);
  c.listeners.delete(gateway);
  // another gateway registered under the same id (a changed limit's successor) keeps the series
  for (const g of c.gateways) if (g.id === gateway.id) return;
  c.latency.remove({ gateway: gateway.id });
}

/** A node:http handler that serves the registry in Prometheus text format. */
export function metricsHandler(registry: Registry): (req: IncomingMessage, res: ServerResponse) => void {
  return (_req, res) => {
    registry.metrics().then(
      (text) => {
        res.statusCode = 200;
        res.setHeader('Content-Type', registry.contentType);
        res.end(text);
      },
      (err: unknown) => {
        res.statusCode = 500;
        res.end(err instanceof Error ? err.message : 'metrics failed');
      },
    );
  };
}

function createCollector(registry: Registry, p: string): Collector {
  const gateways = new Set<AsyncGateway>();
  const registers = [registry];
  const each = (f: (g: AsyncGateway, s: ReturnType<AsyncGateway['stats']>) => void) => {
    for (const g of gateways) f(g, g.stats());
  };
  new Counter({
    name: `${p}syncs_total`,
    help: 'Sync requests the store answered (a sync of many keys goes out in parts, each one request).',
    labelNames: ['gateway'],
    registers,
    collect() {
      this.reset();
      each((g, s) => this.inc({ gateway: g.id }, s.syncs));
    },
  });
  new Counter({
    name: `${p}sync_failures_total`,
    help: `Sync requests (parts) that failed, by reason: ${REASONS}.`,
    labelNames: ['gateway', 'reason'],
    registers,
    collect() {
      this.reset();
      each((g, s) => {
        this.inc({ gateway: g.id, reason: 'timeout' }, s.syncTimeouts);
        this.inc({ gateway: g.id, reason: 'refused' }, s.syncRefusals);
        this.inc({ gateway: g.id, reason: 'error' }, s.syncErrors);
      });
    },
  });
  new Counter({
    name: `${p}store_call_failures_total`,
    help: `Request-path store calls (central-log, leases-ask) that failed, by reason: ${REASONS}.`,
    labelNames: ['gateway', 'reason'],
    registers,
    collect() {
      this.reset();
      each((g, s) => {
        for (const reason of FAILURE_CAUSES)
          this.inc({ gateway: g.id, reason }, s.storeCallFailuresBy[reason]);
      });
    },
  });
  const latency = new Histogram({
    name: `${p}sync_duration_seconds`,
    help: 'Round trip of sync requests (parts) the store answered.',
    labelNames: ['gateway'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers,
  });
  new Gauge({
    name: `${p}last_good_sync_age_seconds`,
    help: 'Time since the store last answered (since start if it never has).',
    labelNames: ['gateway'],
    registers,
    collect() {
      this.reset();
      each((g, s) => this.set({ gateway: g.id }, s.lastGoodAgeMs / 1000));
    },
  });
  new Gauge({
    name: `${p}unsynced_admits`,
    help: 'Admits made by this gateway that the store has not confirmed yet.',
    labelNames: ['gateway'],
    registers,
    collect() {
      this.reset();
      each((g, s) => this.set({ gateway: g.id }, s.unsyncedAdmits));
    },
  });
  new Gauge({
    name: `${p}keys`,
    help: 'Keys the gateway holds state for.',
    labelNames: ['gateway'],
    registers,
    collect() {
      this.reset();
      each((g, s) => this.set({ gateway: g.id }, s.keys));
    },
  });
  new Gauge({
    name: `${p}gateways_live`,
    help: "K in use: gateways sharing the limit (configured, or with gateways 'auto' the store's last count).",
    labelNames: ['gateway'],
    registers,
    collect() {
      this.reset();
      each((g, s) => this.set({ gateway: g.id }, s.gateways));
    },
  });
  new Gauge({
    name: `${p}store_down`,
    help: '1 while the gateway decides by its fail mode because the store is unreachable or too slow.',
    labelNames: ['gateway'],
    registers,
    collect() {
      this.reset();
      each((g, s) => this.set({ gateway: g.id }, s.storeDown ? 1 : 0));
    },
  });
  new Gauge({
    name: `${p}store_offset_seconds`,
    help: 'Store clock minus local clock, as learned at sync.',
    labelNames: ['gateway'],
    registers,
    collect() {
      this.reset();
      each((g, s) => this.set({ gateway: g.id }, s.offsetMs / 1000));
    },
  });
  new Gauge({
    name: `${p}duplicate_id`,
    help: '1 while another live gateway syncs with this gateway id (found at the last answered sync): give each gateway an id of its own.',
    labelNames: ['gateway'],
    registers,
    collect() {
      this.reset();
      each((g, s) => this.set({ gateway: g.id }, s.duplicateId ? 1 : 0));
    },
  });
  new Counter({
    name: `${p}duplicate_id_syncs_total`,
    help: 'Answered syncs that found another live gateway syncing with this gateway id.',
    labelNames: ['gateway'],
    registers,
    collect() {
      this.reset();
      each((g, s) => this.inc({ gateway: g.id }, s.duplicateIdSyncs));
    },
  });
  new Counter({
    name: `${p}early_syncs_total`,
    help: 'Syncs a key wanted early (adaptive-early: its part of the headroom spent), by result: sent (a sync round started off the request path) or capped (the early-sync bucket was empty).',
    labelNames: ['gateway', 'result'],
    registers,
    collect() {
      this.reset();
      each((g, s) => {
        this.inc({ gateway: g.id, result: 'sent' }, s.earlySyncs);
        this.inc({ gateway: g.id, result: 'capped' }, s.earlySyncsCapped);
      });
    },
  });
  new Counter({
    name: `${p}decisions_total`,
    help: 'Decisions by outcome; degraded="true" when made by the fail mode, without the store.',
    labelNames: ['gateway', 'outcome', 'degraded'],
    registers,
    collect() {
      this.reset();
      each((g, s) => {
        const d = s.decisions;
        this.inc({ gateway: g.id, outcome: 'allowed', degraded: 'false' }, d.allowed);
        this.inc({ gateway: g.id, outcome: 'limited', degraded: 'false' }, d.limited);
        this.inc({ gateway: g.id, outcome: 'allowed', degraded: 'true' }, d.degradedAllowed);
        this.inc({ gateway: g.id, outcome: 'limited', degraded: 'true' }, d.degradedLimited);
      });
    },
  });
  return { gateways, latency, listeners: new Map() };
}
