import { createHash } from 'node:crypto';
import { Counter, type Registry } from 'prom-client';
import { ConfigError, ConfigErrors, keyProblem } from '../config.js';
import type { HttpFileOptions } from '../config-file.js';
import type { Decision } from '../gateway/decision.js';
import { type AsyncGateway, createAsyncGateway } from '../gateway/runtime/index.js';
import type { AsyncStore, Store } from '../store/contract.js';
import { bindingDecision, PolicyDecider } from './decider.js';
import {
  costOf,
  duration,
  keyOf,
  type RlsAnswer,
  type RlsAnswered,
  type RlsDescriptorStatus,
  type RlsRequest,
  requestProblem,
  UINT32_MAX,
} from './envoy.js';
import { type Held, limitsToCheck } from './envoy-match.js';
import {
  EnvoyConfigError,
  type EnvoyConfigIssue,
  type EnvoyRlsConfig,
  type YamlLimit,
} from './envoy-yaml.js';
import type { CommonGatewayOptions } from './named-policies.js';

/**
 * The limits of envoyproxy/ratelimit files, each decided by a fleetlimit gateway of its own (its
 * requests_per_unit per unit, the JSON file's design, K, Δ and store), and ShouldRateLimit answered
 * as that service answers it. `apply` swaps in a new configuration without a restart: a limit whose
 * descriptor path, unit and requests_per_unit are unchanged keeps its gateway, so its counts carry over.
 */

/** Limits with a gateway of their own (each a sync timer): bounded like every configured cost. */
export const MAX_ENVOY_LIMITS = 128;
/** Distinct override limits (domain, unit and rate) requests may bring: each a gateway, made on first use. */
export const MAX_OVERRIDE_LIMITS = 16;
/** Distinct values a `detailed_metric` limit labels its counters with; the rest share the limit's own label. */
export const MAX_DETAILED_VALUES = 100;

export interface EnvoyLimitsOptions {
  /** The JSON file's gateway options less limit, windowMs and policyName (policyCommon): id, design, gateways, syncMs, … */
  common: CommonGatewayOptions;
  store: AsyncStore | Store;
  clock?: () => number;
  /** The JSON file's `http` section: header style and names. */
  http?: HttpFileOptions;
  maxDescriptors: number;
  ipv6Subnet: number | false;
  /** Where each gateway's metrics and the per-limit counters are registered. */
  registry: Registry;
}

interface Slot {
  gateway: AsyncGateway;
  decider: PolicyDecider;
}

interface Table {
  config: EnvoyRlsConfig;
  /** Each limit with a gateway (requests_per_unit > 0, not unlimited). */
  slots: Map<YamlLimit, Slot>;
}

export interface ReloadSummary {
  /** Limits whose gateway (and counts) carried over. */
  kept: number;
  /** Limits that start counting with a new gateway (new, or their unit or requests_per_unit changed). */
  added: number;
  /** Gateways of limits no longer configured, stopped after their last sync. */
  removed: number;
}

/**
 * The policy name (and store name) of a limit: one per domain, descriptor path, unit and
 * requests_per_unit, so a changed limit counts afresh and an unchanged one finds its own counts.
 */
export function limitPolicyName(l: YamlLimit): string {
  const h = createHash('sha256')
    .update(JSON.stringify([l.domain, l.path, l.unit, l.requestsPerUnit]))
    .digest('hex');
  return `rl-${h.slice(0, 16)}`;
}

const PRINTABLE = /^[\x20-\x7e]+$/;

type Item =
  | { kind: 'none' }
  | { kind: 'unlimited' }
  | { kind: 'zero'; limit: YamlLimit; cost: number; refund: boolean }
  | {
      kind: 'gateway';
      limit: YamlLimit;
      slot: Slot;
      key: string;
      cost: number;
      label: string;
      refund: boolean;
    };

export class EnvoyLimits {
  private table: Table;
  /** Every gateway of the files' limits, by policy name. */
  private readonly gateways = new Map<string, AsyncGateway>();
  /** The gateways of `descriptors[].limit` overrides, by policy name: kept across reloads. */
  private readonly overrides = new Map<string, Slot>();
  private readonly clock: () => number;
  private readonly hits: Counter<'limit' | 'stat'>;
  private readonly detailed = new Map<string, Set<string>>();
  private applying: Promise<unknown> = Promise.resolve();
  private stopped: Promise<boolean> | null = null;

  constructor(
    private readonly opts: EnvoyLimitsOptions,
    config: EnvoyRlsConfig,
  ) {
    this.clock = opts.clock ?? Date.now;
    const { table, fresh } = this.build(config);
    this.table = table;
    for (const [name, g] of fresh) this.adopt(name, g);
    this.hits = new Counter({
      name: 'fleetlimit_sidecar_envoy_hits_total',
      help: 'Hits (hits_addend) on each envoyproxy/ratelimit limit, by its key (domain.key_value…; with detailed_metric the value too) and stat: total_hits, within_limit, over_limit, shadow_mode (over the limit in shadow mode, answered OK), total_negative_hits (taken back: is_negative_hits)',
      labelNames: ['limit', 'stat'],
      registers: [opts.registry],
    });
  }

  /** The configuration in force. */
  get config(): EnvoyRlsConfig {
    return this.table.config;
  }

  /** Every gateway in use (tests, readiness). */
  get allGateways(): AsyncGateway[] {
    return [...this.gateways.values(), ...[...this.overrides.values()].map((s) => s.gateway)];
  }

  /** The gateway deciding the limit whose key is `fullKey` (`domain.key_value…`), if it has one. */
  gatewayOf(fullKey: string): AsyncGateway | undefined {
    for (const [l, s] of this.table.slots) if (l.fullKey === fullKey) return s.gateway;
    return undefined;
  }

  private adopt(name: string, g: AsyncGateway): void {
    this.gateways.set(name, g);
    g.registerMetrics(this.opts.registry);
  }

  private gatewayFor(l: YamlLimit, name: string): AsyncGateway {
    return createAsyncGateway({
      ...this.opts.common,
      store: this.opts.store,
      ...(this.opts.clock === undefined ? {} : { clock: this.opts.clock }),
      limit: l.requestsPerUnit,
      windowMs: l.windowMs,
      id: `${String(this.opts.common.id)}/${name}`,
      policyName: name,
    });
  }

  /**
   * The gateway of an override limit, made and started on first use (its first decision waits for its
   * first sync), or what stops it being one: more than MAX_OVERRIDE_LIMITS, or options that refuse it.
   */
  private overrideSlot(l: YamlLimit): Slot | string {
    const name = limitPolicyName(l);
    const have = this.overrides.get(name);
    if (have !== undefined) return have;
    if (this.stopped !== null) return 'the sidecar is stopping';
    if (this.overrides.size >= MAX_OVERRIDE_LIMITS) {
      return `${l.field}: more than ${MAX_OVERRIDE_LIMITS} distinct limit overrides (domain, unit and rate) per sidecar`;
    }
    let g: AsyncGateway;
    try {
      g = this.gatewayFor(l, name);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      return `${l.field}: ${l.requestsPerUnit} per ${l.unit.toLowerCase()} cannot be a gateway with the JSON file's options: ${e.message}`;
    }
    const slot = { gateway: g, decider: new PolicyDecider(g, l.fullKey, this.opts.http ?? {}, this.clock) };
    this.overrides.set(name, slot);
    g.registerMetrics(this.opts.registry);
    void g.syncNow().then(() => {
      if (this.stopped === null) g.start();
    });
    return slot;
  }

  /** A table for `config`, reusing the gateways in use; the ones it had to create are in `fresh`. */
  private build(config: EnvoyRlsConfig): { table: Table; fresh: Map<string, AsyncGateway> } {
    const issues: EnvoyConfigIssue[] = [];
    const fresh = new Map<string, AsyncGateway>();
    const slots = new Map<YamlLimit, Slot>();
    const counted = config.limits.filter((l) => !l.unlimited && l.requestsPerUnit > 0);
    if (counted.length > MAX_ENVOY_LIMITS) {
      const l = counted[MAX_ENVOY_LIMITS];
      issues.push({
        file: l.file,
        line: l.line,
        field: l.field,
        message: `is limit ${MAX_ENVOY_LIMITS + 1}: at most ${MAX_ENVOY_LIMITS} limits (each a gateway with its own sync) per sidecar`,
      });
    }
    for (const l of counted.slice(0, MAX_ENVOY_LIMITS)) {
      const name = limitPolicyName(l);
      let g = this.gateways.get(name) ?? fresh.get(name);
      if (g === undefined) {
        try {
          g = this.gatewayFor(l, name);
          fresh.set(name, g);
        } catch (e) {
          if (!(e instanceof ConfigError)) throw e;
          for (const x of e instanceof ConfigErrors ? e.errors : [e]) {
            issues.push({
              file: l.file,
              line: l.line,
              field: l.field,
              message: `${l.requestsPerUnit} per ${l.unit.toLowerCase()} cannot be a gateway with the JSON file's options: ${x.message}`,
            });
          }
          continue;
        }
      }
      const shown = [l.name, l.fullKey].find((n) => PRINTABLE.test(n)) ?? name;
      slots.set(l, { gateway: g, decider: new PolicyDecider(g, shown, this.opts.http ?? {}, this.clock) });
    }
    if (issues.length > 0) {
      for (const g of fresh.values()) void g.stop();
      throw new EnvoyConfigError(issues);
    }
    return { table: { config, slots }, fresh };
  }

  /** The first sync of every gateway (bounded by storeTimeoutMs), then their sync timers. */
  async start(): Promise<void> {
    const all = this.allGateways;
    await Promise.all(all.map((g) => g.syncNow()));
    for (const g of all) g.start();
  }

  /**
   * Puts `config` in force. Refused whole (EnvoyConfigError, the old one still in force) if a limit
   * cannot be a gateway. Limits unchanged keep their gateway and counts; new ones start after a first
   * sync; the gateways of removed or changed limits stop after their last sync. One apply at a time.
   */
  apply(config: EnvoyRlsConfig): Promise<ReloadSummary> {
    const run = this.applying.then(async () => {
      if (this.stopped !== null) throw new Error('fleetlimit sidecar: stopped');
      const { table, fresh } = this.build(config);
      const used = new Set([...table.slots.values()].map((s) => s.gateway));
      await Promise.all([...fresh.values()].map((g) => g.syncNow()));
      for (const [name, g] of fresh) {
        this.adopt(name, g);
        g.start();
      }
      this.table = table;
      const gone: AsyncGateway[] = [];
      for (const [name, g] of this.gateways) {
        if (used.has(g)) continue;
        this.gateways.delete(name);
        gone.push(g);
      }
      await Promise.all(gone.map((g) => g.stop()));
      // their series leave /metrics: a removed limit must not show its last figures for ever
      for (const g of gone) g.unregisterMetrics(this.opts.registry);
      return { kept: used.size - fresh.size, added: fresh.size, removed: gone.length };
    });
    this.applying = run.catch(() => {});
    return run;
  }

  /** Stops every gateway with its last sync: true if the store answered them all. */
  stop(): Promise<boolean> {
    this.stopped ??= this.applying.then(async () => {
      const synced = await Promise.all(this.allGateways.map((g) => g.stop()));
      return synced.every(Boolean);
    });
    return this.stopped;
  }

  /** The counters' label: the limit's key, with detailed_metric its last matched value too (bounded). */
  private label(l: YamlLimit, entries: RlsRequest['descriptors'][number]['entries']): string {
    if (!l.detailedMetric) return l.fullKey;
    const last = entries[Math.min(l.path.length, entries.length) - 1].value;
    const v = typeof last === 'string' ? last : Buffer.from(last).toString('utf8');
    const label = `${l.fullKey}_${v}`;
    let seen = this.detailed.get(l.fullKey);
    if (seen === undefined) this.detailed.set(l.fullKey, (seen = new Set()));
    if (seen.has(label)) return label;
    if (seen.size >= MAX_DETAILED_VALUES) return l.fullKey;
    seen.add(label);
    return label;
  }

  /** ShouldRateLimit, as envoyproxy/ratelimit answers it from the configuration in force. */
  readonly answer = (req: RlsRequest): RlsAnswer => {
    const problem = requestProblem(req, this.opts.maxDescriptors);
    if (problem !== null) return { ok: false, problem };
    const t = this.table;
    const held: Held[] = limitsToCheck(t.config, req.domain, req.descriptors);
    // every key checked before any is counted: a bad one refuses the request whole
    const items: Item[] = [];
    for (let i = 0; i < held.length; i++) {
      const h = held[i];
      if (h.kind === 'bad') return { ok: false, problem: h.problem };
      if (h.kind === 'none') items.push({ kind: 'none' });
      else if (h.kind === 'unlimited') items.push({ kind: 'unlimited' });
      else if (h.limit.requestsPerUnit === 0)
        items.push({
          kind: 'zero',
          limit: h.limit,
          cost: costOf(req.descriptors[i], req.hits_addend ?? 0),
          refund: req.descriptors[i].is_negative_hits === true,
        });
      else {
        let slot: Slot;
        if (h.kind === 'override') {
          const o = this.overrideSlot(h.limit);
          if (typeof o === 'string') return { ok: false, problem: o };
          slot = o;
        } else slot = t.slots.get(h.limit) as Slot;
        const d = req.descriptors[i];
        // the keys matched a limit, so each is UTF-8 text
        const keys = d.entries.map((e) =>
          typeof e.key === 'string' ? e.key : Buffer.from(e.key).toString('utf8'),
        );
        const key = keyOf(keys, d.entries, this.opts.ipv6Subnet);
        const kp = keyProblem(key);
        if (kp !== null) return { ok: false, problem: `descriptors[${i}]: ${kp}` };
        const cost = costOf(d, req.hits_addend ?? 0);
        items.push({
          kind: 'gateway',
          limit: h.limit,
          slot,
          key,
          cost,
          label: this.label(h.limit, d.entries),
          refund: d.is_negative_hits === true,
        });
      }
    }
    const pending = items.map((it) => {
      if (it.kind !== 'gateway') return null;
      const p = it.slot.decider;
      return it.refund ? p.refundHits(it.key, it.cost) : p.decideKept(it.key, it.cost);
    });
    const respond = (ds: (Decision | null)[]) => this.respond(items, ds);
    if (pending.some((p) => p instanceof Promise))
      return { ok: true, answered: Promise.all(pending).then(respond) };
    return { ok: true, answered: respond(pending as (Decision | null)[]) };
  };

  private count(label: string, stat: string, n: number): void {
    this.hits.inc({ limit: label, stat }, n);
  }

  private respond(items: Item[], decisions: (Decision | null)[]): RlsAnswered {
    const now = this.clock();
    const statuses: RlsDescriptorStatus[] = [];
    const binding: (Decision | null)[] = [];
    let over = false;
    let limited = false;
    for (let i = 0; i < items.length; i++) {
      const it = items[i];
      binding.push(null);
      if (it.kind === 'none') {
        statuses.push({ code: 'OK' });
        continue;
      }
      if (it.kind === 'unlimited') {
        statuses.push({ code: 'OK', limit_remaining: UINT32_MAX });
        continue;
      }
      limited = true;
      const l = it.limit;
      const current_limit = { name: l.name, requests_per_unit: l.requestsPerUnit, unit: l.unit };
      if (it.refund) {
        // is_negative_hits: taken back (refundHits), never over the limit, counted apart
        const d = it.kind === 'gateway' ? (decisions[i] as Decision) : null;
        this.count(it.kind === 'gateway' ? it.label : l.fullKey, 'total_negative_hits', it.cost);
        statuses.push({
          code: 'OK',
          current_limit,
          limit_remaining: d === null ? 0 : Math.min(Math.floor(d.remaining), UINT32_MAX),
          duration_until_reset: duration(d === null ? 0 : d.resetMs),
        });
        continue;
      }
      if (it.kind === 'zero') {
        // nothing to count: refused whole, until the end of the service's fixed window
        const label = l.fullKey;
        this.count(label, 'total_hits', it.cost);
        this.count(label, 'over_limit', it.cost);
        if (l.shadowMode) this.count(label, 'shadow_mode', it.cost);
        else over = true;
        statuses.push({
          code: l.shadowMode ? 'OK' : 'OVER_LIMIT',
          current_limit,
          limit_remaining: 0,
          duration_until_reset: duration(l.windowMs - (now % l.windowMs)),
        });
        continue;
      }
      const d = decisions[i] as Decision;
      this.count(it.label, 'total_hits', it.cost);
      this.count(it.label, d.allowed ? 'within_limit' : 'over_limit', it.cost);
      if (!d.allowed && l.shadowMode) this.count(it.label, 'shadow_mode', it.cost);
      if (!d.allowed && !l.shadowMode) over = true;
      // a shadow rejection is an OK whose headers would tell the client to wait: it binds nothing
      if (d.allowed || !l.shadowMode) binding[i] = d;
      statuses.push({
        code: d.allowed || l.shadowMode ? 'OK' : 'OVER_LIMIT',
        current_limit,
        limit_remaining: d.allowed ? Math.min(Math.max(0, Math.floor(d.remaining)), UINT32_MAX) : 0,
        duration_until_reset: duration(d.allowed ? d.resetMs : (d.retryAfterMs ?? d.resetMs)),
      });
    }
    const b = bindingDecision(binding);
    const it = b < 0 ? null : items[b];
    const headers =
      it !== null && it.kind === 'gateway' ? it.slot.decider.headers(binding[b] as Decision) : {};
    return {
      response: {
        overall_code: over ? 'OVER_LIMIT' : 'OK',
        statuses,
        response_headers_to_add: Object.entries(headers).map(([key, value]) => ({ key, value })),
      },
      outcome: !limited ? 'skipped' : over ? 'limited' : 'allowed',
    };
  }
}
