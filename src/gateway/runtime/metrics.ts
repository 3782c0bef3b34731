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

type Stats = ReturnType<AsyncGateway['stats']>;

/**
 * One series read from `stats()` at scrape time: a plain number, or one number per value of the
 * extra labels (`labels`), each row the label values in that order and the number.
 */
interface StatSeries {
  kind: 'counter' | 'gauge';
  name: string;
  help: string;
  labels?: readonly string[];
  read(s: Stats): number | readonly (readonly [readonly string[], number])[];
}

/** Every series but the latency histogram, in the order a scrape lists them after it. */
const CALL_SERIES: readonly StatSeries[] = [
  {
    kind: 'counter',
    name: 'syncs_total',
    help: 'Sync requests the store answered (a sync of many keys goes out in parts, each one request).',
    read: (s) => s.syncs,
  },
  {
    kind: 'counter',
    name: 'sync_failures_total',
    help: `Sync requests (parts) that failed, by reason: ${REASONS}.`,
    labels: ['reason'],
    read: (s) => [
      [['timeout'], s.syncTimeouts],
      [['refused'], s.syncRefusals],
      [['error'], s.syncErrors],
    ],
  },
  {
    kind: 'counter',
    name: 'store_call_failures_total',
    help: `Request-path store calls (central-log, leases-ask) that failed, by reason: ${REASONS}.`,
    labels: ['reason'],
    read: (s) => FAILURE_CAUSES.map((reason) => [[reason], s.storeCallFailuresBy[reason]] as const),
  },
];

const STATE_SERIES: readonly StatSeries[] = [
  {
    kind: 'gauge',
    name: 'last_good_sync_age_seconds',
    help: 'Time since the store last answered (since start if it never has).',
    read: (s) => s.lastGoodAgeMs / 1000,
  },
  {
    kind: 'gauge',
    name: 'unsynced_admits',
    help: 'Admits made by this gateway that the store has not confirmed yet.',
    read: (s) => s.unsyncedAdmits,
  },
  { kind: 'gauge', name: 'keys', help: 'Keys the gateway holds state for.', read: (s) => s.keys },
  {
    kind: 'gauge',
    name: 'gateways_live',
    help: "K in use: gateways sharing the limit (configured, or with gateways 'auto' the store's last count).",
    read: (s) => s.gateways,
  },
  {
    kind: 'gauge',
    name: 'store_down',
    help: '1 while the gateway decides by its fail mode because the store is unreachable or too slow.',
    read: (s) => (s.storeDown ? 1 : 0),
  },
  {
    kind: 'gauge',
    name: 'store_offset_seconds',
    help: 'Store clock minus local clock, as learned at sync.',
    read: (s) => s.offsetMs / 1000,
  },
  {
    kind: 'gauge',
    name: 'duplicate_id',
    help: '1 while another live gateway syncs with this gateway id (found at the last answered sync): give each gateway an id of its own.',
    read: (s) => (s.duplicateId ? 1 : 0),
  },
  {
    kind: 'counter',
    name: 'duplicate_id_syncs_total',
    help: 'Answered syncs that found another live gateway syncing with this gateway id.',
    read: (s) => s.duplicateIdSyncs,
  },
  {
    kind: 'counter',
    name: 'early_syncs_total',
    help: 'Syncs a key wanted early (adaptive-early: its part of the headroom spent), by result: sent (a sync round started off the request path) or capped (the early-sync bucket was empty).',
    labels: ['result'],
    read: (s) => [
      [['sent'], s.earlySyncs],
      [['capped'], s.earlySyncsCapped],
    ],
  },
  {
    kind: 'counter',
    name: 'decisions_total',
    help: 'Decisions by outcome; degraded="true" when made by the fail mode, without the store.',
    labels: ['outcome', 'degraded'],
    read: ({ decisions: d }) => [
      [['allowed', 'false'], d.allowed],
      [['limited', 'false'], d.limited],
      [['allowed', 'true'], d.degradedAllowed],
      [['limited', 'true'], d.degradedLimited],
    ],
  },
];

/** Registers `series` on `registry`, each read from every gateway's stats() at scrape time. */
function registerSeries(
  registry: Registry,
  p: string,
  gateways: Set<AsyncGateway>,
  series: readonly StatSeries[],
): void {
  for (const m of series) {
    const extra = m.labels ?? [];
    const Metric = m.kind === 'counter' ? Counter : Gauge;
    new Metric({
      name: `${p}${m.name}`,
      help: m.help,
      labelNames: ['gateway', ...extra],
      registers: [registry],
      collect(this: Counter<string> | Gauge<string>) {
        this.reset();
        for (const g of gateways) {
          const v = m.read(g.stats());
          if (typeof v === 'number') {
            set(this, { gateway: g.id }, v);
            continue;
          }
          for (const [values, n] of v) {
            const labels: Record<string, string> = { gateway: g.id };
            for (let i = 0; i < extra.length; i++) labels[extra[i]] = values[i];
            set(this, labels, n);
          }
        }
      },
    });
  }
}

/** A counter's collect adds to its reset value; a gauge's sets it. */
function set(metric: Counter<string> | Gauge<string>, labels: Record<string, string>, n: number): void {
  if (metric instanceof Counter) metric.inc(labels, n);
  else metric.set(labels, n);
}

function createCollector(registry: Registry, p: string): Collector {
  const gateways = new Set<AsyncGateway>();
  registerSeries(registry, p, gateways, CALL_SERIES);
  const latency = new Histogram({
    name: `${p}sync_duration_seconds`,
    help: 'Round trip of sync requests (parts) the store answered.',
    labelNames: ['gateway'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  registerSeries(registry, p, gateways, STATE_SERIES);
  return { gateways, latency, listeners: new Map() };
}
