import type { Policy } from '../../config.js';
import { Slicer } from '../../util/slicer.js';
import type {
  AskReply,
  AskRequest,
  AsyncStore,
  Heartbeat,
  HeartbeatReply,
  LogAdmitReply,
  LogAdmitRequest,
  LogVoid,
  Refund,
  ResetKeyReply,
  ResetKeyRequest,
  ResetScanReply,
  ResetScanRequest,
  SyncReply,
  SyncRequest,
  SyncResult,
} from '../contract.js';
import { requireHeartbeat } from '../live-set.js';
import { policyTag } from '../policy-tag.js';
import { requireCost } from '../require-cost.js';
import { CallOrder } from './call-order.js';
import { KeyNameCache, type NamedKey } from './key-name-cache.js';
import type { KeyNames } from './key-names.js';
import {
  type RedisStoreOptions,
  type ResolvedRedisStoreOptions,
  resolveRedisStoreOptions,
} from './options.js';
import { logOfMeta, metaPattern, nextCursor, readCursor, scanServers } from './reset-scan.js';
import { respBulks } from './resp-wire.js';
import { composeScript, type LuaScript, type RedisClient, type ScriptCall } from './script.js';
import { keepLoaded } from './script-loader.js';
import { sendPipelined } from './send-pipelined.js';
import { type Chunk, chunkEntries } from './sync-chunks.js';
import { decodeSyncChunk, encodeSyncCall } from './sync-wire.js';

interface Scripts {
  logAdmit: LuaScript;
  void: LuaScript;
  refund: LuaScript;
  reset: LuaScript;
  sync: LuaScript;
  ask: LuaScript;
  live: LuaScript;
}

/**
 * The store contract over Redis or Redis Cluster (ioredis). Every operation is one atomic Lua script
 * per key group; a sync of N keys is one pipelined round trip. Decisions are those of MemoryStore:
 * the same expiry rule, grant rule and replay rule, on the same float arithmetic.
 *
 * Idempotent syncs: each key's meta hash keeps, per gateway, the seq of the last sync that pushed
 * admits to it ('q:<gateway>'). A retry with that seq pushes nothing again; an older seq is refused
 * (RangeError). The record lives in the key's own slot, so a sync never needs a cross-slot key and
 * the check is atomic with the push; it expires with the key, when every admit it protects has aged
 * out and a replay could add nothing. A stale seq is detected per key, as MemoryStore.sync does: only
 * keys that a newer sync pushed to refuse it, so a sync may come in parts with one seq.
 *
 * Incarnations (SyncRequest.incarnationOf): one string key per gateway id, `<prefix>i:<id>`, holds
 * the incarnation that synced last, swapped with one SET ... GET (Redis 6.2+) sent beside the sync's
 * pipeline: one small command per sync, in its own slot in a cluster. It expires after an hour
 * without syncs.
 */
export class RedisStore implements AsyncStore {
  readonly options: ResolvedRedisStoreOptions;
  readonly clock: 'store' | 'caller';
  private readonly scripts: Scripts;
  private readonly logKind: 'l' | 'b';
  /** Every call lands in the order it was made, through resends (see CallOrder). */
  private readonly order = new CallOrder();
  private readonly names: KeyNameCache;

  constructor(
    private readonly client: RedisClient,
    opts: RedisStoreOptions = {},
  ) {
    this.options = resolveRedisStoreOptions(opts, this.isCluster());
    this.clock = this.options.clock === 'redis' ? 'store' : 'caller';
    const exact = this.options.mode === 'exact';
    const windowModule = exact ? 'window-exact.lua' : 'window-buckets.lua';
    this.logKind = exact ? 'l' : 'b';
    // compact mode's sync names a key by its meta hash alone (window-buckets.lua)
    this.names = new KeyNameCache(
      this.options.prefix,
      this.logKind,
      NAME_CACHE_KEYS,
      exact,
      this.options.keyGroups,
    );
    this.scripts = {
      logAdmit: composeScript('log-admit.lua', windowModule),
      void: composeScript('void.lua', windowModule),
      refund: composeScript('refund.lua', windowModule),
      reset: composeScript('reset.lua', windowModule),
      sync: composeScript('sync.lua', windowModule, true, exact, true),
      ask: composeScript('ask.lua', windowModule),
      live: composeScript('live.lua', windowModule),
    };
    keepLoaded(client, Object.values(this.scripts));
  }

  /** The client has a connection (ioredis 'ready'); while it reconnects, a call waits or fails at once. */
  connected(): boolean {
    return this.client.status === 'ready';
  }

  /** A script on one key's log and meta, run in this store's call order (CallOrder); R: its reply. */
  private runOnKey<R>(script: LuaScript, k: KeyNames, args: string[]): Promise<R> {
    // not async: the caller awaits the call order's own promise, no extra turn
    return this.order.request(() => script.run(this.client, [k.log, k.meta], args)) as Promise<R>;
  }

  /** The Redis key names holding a user key's records under `policy` (tests, tools). */
  keyNames(key: string, policy: Policy): KeyNames {
    return this.names.get(key, policy);
  }

  async logAdmit(req: LogAdmitRequest, now: number): Promise<LogAdmitReply> {
    const { key, policy, cost, call } = req;
    requireCost(cost);
    const k = this.keyNames(key, policy);
    const args = [
      ...this.head(policy, now),
      String(cost),
      call === undefined ? '' : call.gatewayId,
      call === undefined ? '0' : String(call.seq),
    ];
    const r = await this.runOnKey<[number, number, string, string]>(this.scripts.logAdmit, k, args);
    return {
      allowed: r[0] === 1,
      count: r[1],
      oldestExpiry: r[2] === '' ? Number.POSITIVE_INFINITY : Number(r[2]),
      now: Number(r[3]),
    };
  }

  /** One void.lua call per key, pipelined (see the contract). */
  async voidLogAdmits(gatewayId: string, policy: Policy, voids: LogVoid[], now: number): Promise<void> {
    if (voids.length === 0) return;
    const byKey = new Map<string, LogVoid[]>();
    for (const v of voids) {
      let l = byKey.get(v.key);
      if (l === undefined) byKey.set(v.key, (l = []));
      l.push(v);
    }
    const calls: ScriptCall[] = [];
    for (const [key, vs] of byKey) {
      const k = this.keyNames(key, policy);
      const args = [...this.head(policy, now), gatewayId, String(vs.length)];
      for (const v of vs) args.push(String(v.seq), String(v.cost));
      calls.push({ script: this.scripts.void, keys: [k.log, k.meta], args });
    }
    await this.order.request(async () => (await sendPipelined(this.client, calls)).replies);
  }

  /**
   * refund.lua calls, pipelined: the keys of one cluster slot (one group on one server) share a call,
   * each key's refunds in the order given (their seqs ascending), at most REFUNDS_PER_CALL refunds in
   * one call (each may read up to window-exact.lua's REFUND_SCAN members: a call's work stays bounded
   * however many a gateway sends); a key with more goes on in the next call of its slot. See the
   * contract.
   */
  async refundAdmits(gatewayId: string, policy: Policy, refunds: Refund[], now: number): Promise<number> {
    if (refunds.length === 0) return 0;
    const byKey = new Map<string, Refund[]>();
    for (const r of refunds) {
      requireCost(r.cost);
      let l = byKey.get(r.key);
      if (l === undefined) byKey.set(r.key, (l = []));
      l.push(r);
    }
    const head = [...this.head(policy, now), gatewayId];
    const calls: ScriptCall[] = [];
    // per slot, the call being filled
    const open = new Map<number, { keys: string[]; args: string[]; refunds: number }>();
    const cluster = this.isCluster();
    const tag = policyTag(policy);
    for (const [key, rs] of byKey) {
      const named = this.names.named(key, policy, tag);
      const slot = cluster ? named.slot : 0;
      for (let from = 0; from < rs.length; ) {
        let call = open.get(slot);
        if (call === undefined || call.refunds >= REFUNDS_PER_CALL) {
          call = { keys: [], args: [...head], refunds: 0 };
          open.set(slot, call);
          calls.push({ script: this.scripts.refund, keys: call.keys, args: call.args });
        }
        const part = rs.slice(from, from + REFUNDS_PER_CALL - call.refunds);
        call.keys.push(named.names.log, named.names.meta);
        call.args.push(String(part.length));
        for (const r of part) call.args.push(String(r.seq), String(r.at), String(r.cost));
        call.refunds += part.length;
        from += part.length;
      }
    }
    const replies = await this.order.request(async () => (await sendPipelined(this.client, calls)).replies);
    let removed = 0;
    for (const r of replies as [number, string][]) removed += Number(r[0]);
    return removed;
  }

  /**
   * reset.lua on the key's records (in a cluster, the key's slot), in call order with every other
   * call of this store (CallOrder): see the contract.
   */
  async resetKey(req: ResetKeyRequest, now: number): Promise<ResetKeyReply> {
    const k = this.keyNames(req.key, req.policy);
    const args = this.head(req.policy, now);
    const r = await this.runOnKey<[number, string]>(this.scripts.reset, k, args);
    return { removed: Number(r[0]), now: Number(r[1]) };
  }

  /**
   * One chunk of a policy's reset (see the contract): SCAN with COUNT `req.count` over the policy's
   * meta hashes on one server (in a cluster, each master in turn: the cursor names which), then
   * reset.lua through `req.at` on each key found, in call order with every other call (CallOrder).
   */
  async resetScan(req: ResetScanRequest, now: number): Promise<ResetScanReply> {
    const { server, scan } = readCursor(req.cursor);
    const servers = scanServers(this.client);
    if (server >= servers.length) return { cursor: null, keys: 0, removed: 0, now: await this.storeNow(now) };
    const clientPrefix = (this.client.options as { keyPrefix?: string }).keyPrefix ?? '';
    const { prefix } = this.options;
    const tag = policyTag(req.policy);
    const count = String(Math.max(1, Math.floor(req.count)));
    const pattern = metaPattern(clientPrefix, prefix, tag);
    const [next, found] = await servers[server].scan(scan, 'MATCH', pattern, 'COUNT', count);
    const args = [...this.head(req.policy, now), String(req.at)];
    const calls: [string, string][] = [];
    for (const name of found) {
      const log = logOfMeta(name.slice(clientPrefix.length), prefix, tag, this.logKind);
      if (log !== null) calls.push([log, name.slice(clientPrefix.length)]);
    }
    const cursor = nextCursor(server, next, servers.length);
    if (calls.length === 0) return { cursor, keys: 0, removed: 0, now: await this.storeNow(now) };
    const replies = (await this.order.request(() =>
      Promise.all(calls.map((keys) => this.scripts.reset.run(this.client, keys, args))),
    )) as [number, string][];
    let removed = 0;
    let storeNow = Number.NEGATIVE_INFINITY;
    for (const r of replies) {
      removed += Number(r[0]);
      storeNow = Math.max(storeNow, Number(r[1]));
    }
    return { cursor, keys: calls.length, removed, now: storeNow };
  }

  async ask(req: AskRequest, now: number): Promise<AskReply> {
    const { gatewayId, key, policy, leaseTtlMs, ask, seq = 0 } = req;
    const k = this.keyNames(key, policy);
    const args = [...this.head(policy, now), gatewayId, String(leaseTtlMs), String(ask), String(seq)];
    const r = await this.runOnKey<[number, string, string, number, string, number]>(
      this.scripts.ask,
      k,
      args,
    );
    return {
      granted: r[0],
      grantExpiresAt: Number(r[1]),
      now: Number(r[2]),
      count: r[3],
      oldestExpiry: r[4] === '' ? Number.POSITIVE_INFINITY : Number(r[4]),
      free: r[5],
    };
  }

  /**
   * `gateways: 'auto'`: one live.lua call on the policy's live set, `<prefix>{live}g[<policyTag>]`
   * (one hash tag: one slot in a cluster). Separate from the sync's pipeline, and outside CallOrder:
   * it touches no key a sync or request-path call touches.
   */
  async heartbeat(beat: Heartbeat, now: number): Promise<HeartbeatReply> {
    requireHeartbeat(beat);
    const set = this.liveSetName(beat.policy);
    const args = [
      ...this.head(beat.policy, now),
      beat.gatewayId,
      String(beat.liveWithinMs),
      beat.leaving === true ? '1' : '0',
    ];
    const r = (await this.scripts.live.run(this.client, [set], args)) as [number, string];
    return { live: r[0], now: Number(r[1]) };
  }

  /** The Redis key of a policy's live gateways (tests, tools). */
  liveSetName(policy: Policy): string {
    return `${this.options.prefix}{live}g[${policyTag(policy)}]`;
  }

  /**
   * One sync, pipelined: one round trip for any number of keys. Preparing the calls (key names,
   * arguments, ioredis commands), writing them and unpacking the replies run in slices of a few ms
   * (Slicer), so a sync of tens of thousands of keys never holds the event loop for long. It is
   * written once every call made before it has settled, and calls made after it wait until its
   * replies (resends included) are in (CallOrder): every call lands in the order it was made (an ask
   * made after a sync must not land before the call holding its key's release, which would hand its
   * grant back), whatever comes back NOSCRIPT or redirected.
   */
  async sync(req: SyncRequest, now: number): Promise<SyncResult> {
    const claim = req.incarnationOf === undefined ? null : this.claim(req.incarnationOf, req.gatewayId);
    const result = await this.syncEntries(req, now);
    if (claim !== null) {
      const prev = await claim;
      if (prev !== undefined) result.previousIncarnation = prev;
    }
    return result;
  }

  /**
   * Records `incarnation` as the one that synced last for gateway `id`; resolves to the one it
   * replaced (null: none), or undefined if the store could not say (an error: the sync itself stands).
   */
  private claim(id: string, incarnation: string): Promise<string | null | undefined> {
    const key = `${this.options.prefix}i:${id}`;
    return (
      this.client.set(key, incarnation, 'PX', INCARNATION_TTL_MS, 'GET') as Promise<string | null>
    ).then(
      (v) => v,
      () => undefined,
    );
  }

  private async syncEntries(req: SyncRequest, now: number): Promise<SyncResult> {
    const { entries } = req;
    if (entries.length === 0) return { now: await this.storeNow(now), replies: [] };
    const slicer = new Slicer();
    const prepare = async () => {
      const names = new Array<NamedKey>(entries.length);
      const tag = policyTag(req.policy);
      const generation = this.names.generation;
      for (let i = 0; i < entries.length; i++) {
        names[i] = this.names.named(entries[i].key, req.policy, tag);
        if (slicer.due()) await slicer.pause();
      }
      const cluster = this.isCluster();
      const slots = cluster ? names.map((n) => n.slot) : null;
      // the cache started over meanwhile: one key may have two NamedKeys, so keys are told apart by name
      const ids = this.names.generation === generation ? names : null;
      const { chunkKeys, chunkAdmits } = this.options;
      const chunks = chunkEntries(entries, ids, slots, chunkKeys, chunkAdmits);
      const args = [
        ...this.head(req.policy, now),
        req.gatewayId,
        String(req.seq),
        String(req.leaseTtlMs),
        String(req.horizonMs),
      ];
      const head = { args, resp: respBulks(args) };
      const calls = new Array<ScriptCall>(chunks.length);
      const paired = this.options.mode === 'exact';
      for (let c = 0; c < chunks.length; c++) {
        // In a cluster every call (a key group's keys, decision 0011) is carried with others of its
        // node (sendPipelined), which encodes it anew: prebuilt bytes would be wasted. sync.lua runs
        // once per script call and checks the carried keys with its own reads (dispatch.lua), so
        // carrying saves a call's set-up at next to no cost: 10,000 keys on 3 masters, Redis
        // instructions per key-sync 1.13 × one server's with groups of 16 keys or more alone (an
        // EXISTS then checked each carried name), 1.10 × carrying all (docs/fleet-many-keys.md).
        const alone = !cluster;
        calls[c] = encodeSyncCall(this.scripts.sync, paired, chunks[c], entries, names, head, alone);
        if (slicer.due(chunks[c].indexes.length)) await slicer.pause();
      }
      return { chunks, calls };
    };
    let chunks: Chunk[] = [];
    let raw: unknown[];
    try {
      raw = await this.order.exclusive(prepare, async (p) => {
        chunks = p.chunks;
        return (await sendPipelined(this.client, p.calls, slicer)).replies;
      });
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('STALE_SEQ')) {
        throw new RangeError(`gateway ${req.gatewayId}: ${err.message.slice('STALE_SEQ '.length)}`);
      }
      throw err;
    }
    const replies = new Array<SyncReply>(entries.length);
    // each script call reads its own TIME: a reply's horizon and lapse use its call's now, and the
    // sync's now is the latest of them (they differ by the pipeline's spread, well under a ms)
    let storeNow = Number.NEGATIVE_INFINITY;
    for (let c = 0; c < chunks.length; c++) {
      const t = decodeSyncChunk(raw[c] as (Buffer | number)[], chunks[c].indexes, entries, req, replies);
      if (t > storeNow) storeNow = t;
      if (slicer.due(chunks[c].indexes.length)) await slicer.pause();
    }
    return { now: storeNow, replies };
  }

  /** ARGV[1..6] of every script (see common.lua). */
  private head(policy: Policy, now: number): string[] {
    const o = this.options;
    return [
      o.clock === 'redis' ? '' : String(now),
      String(policy.windowMs),
      policy.windowKind === 'fixed' ? 'f' : 's',
      String(policy.limit),
      o.mode === 'buckets' ? String(o.buckets) : '0',
      String(o.expiryMarginMs),
    ];
  }

  private async storeNow(now: number): Promise<number> {
    if (this.options.clock === 'caller') return now;
    const [sec, usec] = await this.client.time();
    return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
  }

  private isCluster(): boolean {
    return (this.client as { isCluster?: boolean }).isCluster === true;
  }
}

/** Key names remembered per store (about 300 bytes each; see KeyNameCache). */
const NAME_CACHE_KEYS = 100_000;

/** Refunds of one key in one refund.lua call (see refundAdmits). */
const REFUNDS_PER_CALL = 64;

/** A gateway id's incarnation record outlives its last sync by this much. */
const INCARNATION_TTL_MS = 3_600_000;
