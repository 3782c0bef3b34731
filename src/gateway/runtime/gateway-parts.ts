import { randomBytes } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { type Design, touchesStore } from '../../designs/index.js';
import type { KeyLimiter } from '../../designs/key-limiter.js';
import type { AsyncStore } from '../../store/contract.js';
import type { Decision } from '../decision.js';
import { AskCoalescer } from './ask-coalescer.js';
import type { AsyncGatewayEvents } from './async-gateway-events.js';
import type { ResolvedAsyncGatewayOptions } from './async-options.js';
import { Decisions } from './decisions.js';
import { IdClaims } from './duplicate-id.js';
import { EarlySyncs } from './early-syncs.js';
import type { FailModeContext } from './fail-modes.js';
import { KeyTable } from './key-table.js';
import { LogVoids } from './log-voids.js';
import type { StoreAccess } from './store-access.js';
import { StoreClock } from './store-clock.js';
import { StoreHealth } from './store-health.js';
import { StoreRequests } from './store-requests.js';
import { SyncLoop } from './sync-loop.js';
import { TakeBacks } from './take-backs.js';

/** What the parts call back on the gateway: its events, clock, decision path and counters. */
export interface GatewayHooks {
  events: EventEmitter<AsyncGatewayEvents>;
  /** Decision time (AsyncGateway.now). */
  now(): number;
  /** Decisions must not rely on the store now (StoreHealth.down at the local clock). */
  storeDown(): boolean;
  fromLimiter(lim: KeyLimiter, allowed: boolean, now: number, cost: number): Decision;
  /** The fail mode's decision, counted. */
  degraded(key: string, now: number, cost: number, counted: boolean): Decision;
  /** Admits of held limiters the store has not confirmed yet: + when spent, − when confirmed or taken back. */
  unconfirmed(delta: number): void;
  /** gateways 'auto': a heartbeat changed K. */
  gatewaysChanged(): void;
}

/** Every part of an AsyncGateway, wired to one another (see buildGatewayParts). */
export interface GatewayParts {
  /** Who the store sees: the gateway's id and a random nonce (see IdClaims, Incarnations). */
  incarnation: string;
  storeClock: StoreClock;
  health: StoreHealth;
  voids: LogVoids;
  table: KeyTable;
  asks: AskCoalescer;
  claims: IdClaims;
  takeBacks: TakeBacks;
  loop: SyncLoop;
  decisions: Decisions;
  requests: StoreRequests;
  failModes: FailModeContext;
  earlySyncs: EarlySyncs | null;
}

/**
 * Builds an AsyncGateway's parts from its resolved options and design, each given only what it uses.
 * Apart from the gateway so that the class reads as its decision path and public API, and the wiring
 * (which part calls which, and through which hook) is in one place. The parts are built in the order
 * the gateway's constructor built them when it wired them itself.
 */
export function buildGatewayParts(
  o: ResolvedAsyncGatewayOptions,
  design: Design,
  hooks: GatewayHooks,
): GatewayParts {
  const { options, store, storeTimeoutMs, clock, maxKeys } = o;
  const { fleet, policy } = options;
  // gateways 'auto': the first decisions wait for the first round's count of the fleet, as they do
  // for a store's clock (one round trip, once): K is never a guess while the store can answer
  const waits = waitsForClock(store, design) || options.autoGateways;
  const storeClock = new StoreClock(waits, store.clock === 'store');
  const health = new StoreHealth(clock(), o.staleAfterMs, design.requestPath !== null);
  const voids = new LogVoids(maxKeys);
  const asks = new AskCoalescer();
  // the closures below read `loop` once it is built (only when called: after this function returns)
  let loop: SyncLoop | null = null;
  const theLoop = (): SyncLoop => loop!;
  const table = new KeyTable({
    maxKeys,
    policy,
    holdsKeys: design.holdsKeys,
    create: (now) => design.create(fleet, now),
    busy: (key) => asks.has(key),
    onFull: () => {
      if (theLoop().running) theLoop().tick();
    },
  });
  const takeBacks = new TakeBacks({
    table,
    design,
    options,
    maxKeys,
    usesStore: touchesStore(design),
    now: hooks.now,
    rounds: theLoop,
    unspent: (n) => hooks.unconfirmed(-n),
  });
  const incarnation = `${options.id}~${randomBytes(9).toString('base64url')}`;
  const claims = new IdClaims(options.id, incarnation);
  const access: StoreAccess = {
    store,
    storeTimeoutMs,
    incarnation,
    options,
    clock,
    storeClock,
    health,
    voids,
    events: hooks.events,
  };
  loop = new SyncLoop({
    ...access,
    id: options.id,
    random: o.random,
    table,
    claims,
    refunds: takeBacks.refundQueue,
    resets: takeBacks.resetQueue,
    resolveRefunds: (now) => takeBacks.resolveRefunds(now),
    confirmed: (own) => {
      for (const n of own) hooks.unconfirmed(-n);
    },
    gatewaysChanged: hooks.gatewaysChanged,
  });
  const decisions = new Decisions({ design, options, lastSyncStartAt: () => theLoop().lastSyncStartAt });
  const requests = new StoreRequests({
    ...access,
    requestPath: design.requestPath,
    now: hooks.now,
    asks,
    builtSeq: () => theLoop().builtSeq,
    storeDown: hooks.storeDown,
    decided: (lim, allowed, at, cost) => decisions.count(hooks.fromLimiter(lim, allowed, at, cost), false),
    spent: (cost) => hooks.unconfirmed(cost),
    degraded: hooks.degraded,
  });
  const failModes: FailModeContext = {
    failMode: o.failMode,
    grants: design.grants,
    options,
    table,
    fromLimiter: hooks.fromLimiter,
    spent: (cost) => hooks.unconfirmed(cost),
    untilNextSync: (now) => decisions.untilNextSync(now),
  };
  const early = design.earlySyncs;
  const earlySyncs = early === null ? null : new EarlySyncs(early, fleet.syncMs, loop);
  return {
    incarnation,
    storeClock,
    health,
    voids,
    table,
    asks,
    claims,
    takeBacks,
    loop,
    decisions,
    requests,
    failModes,
    earlySyncs,
  };
}

/**
 * A store on its own clock (Redis TIME) ages the window on that clock, and an admit counts from its
 * instant on it. Until a reply tells a gateway that clock, its own may be off by seconds, and an admit
 * stamped on it would count seconds too long (clock ahead) or too short (behind): decisions wait for a
 * sync's reply, one round trip (at most storeTimeoutMs), once per gateway. Not a design's that never
 * syncs: central-log's are made at the store, split's never leave the gateway. If that sync fails,
 * decisions go ahead on the local clock.
 */
function waitsForClock(store: AsyncStore, design: Design): boolean {
  return store.clock === 'store' && design.syncs !== 'never';
}
