import { Redis } from 'ioredis';

/** Redis keys a SCAN walk reads at most: the walk stays bounded whatever else the server holds. */
const MAX_SCAN = 2_000_000;
/** User keys whose records MEMORY USAGE measures (keyFigures). */
const SAMPLE_KEYS = 200;
/** idleExpiry: DBSIZE polled this often, and a SCAN at least this often (ms). */
const POLL_MS = 100;
const SCAN_EVERY_MS = 2000;

/** Redis's own counters at one instant: CPU seconds it has used, and the bytes it holds. */
export interface RedisSnapshot {
  /** used_cpu_user + used_cpu_sys, s */
  cpuS: number;
  usedMemory: number;
  /** wall-clock ms of the snapshot */
  at: number;
}

/** What a run's keys cost Redis at the end of the run. */
export interface RedisKeyFigures {
  /** Redis CPU seconds per wall second over the run (of one core) */
  cpuShare: number;
  /** rate-limited keys with records in Redis at the end (distinct user keys under the run's prefix) */
  userKeys: number;
  /** Redis keys those records take */
  redisKeys: number;
  /** MEMORY USAGE summed over a sample of user keys' records, per user key, bytes */
  bytesPerKeySampled: number;
  sampledKeys: number;
  /** used_memory growth over the run / userKeys, bytes */
  usedMemoryPerKey: number;
}

/** How the run's idle keys left Redis after the load (RedisProbe.idleExpiry). */
export interface IdleExpiry {
  /** user keys' records (Redis keys) when the watch began */
  recordsAtStart: number;
  /** ms after `from` at which none was left; null if some were still there at the deadline */
  goneAtMs: number | null;
  /** records left at the end of the watch */
  left: number;
  /** records left, about once a second, ms after `from` */
  samples: { atMs: number; records: number }[];
}

function infoField(info: string, field: string): number {
  const m = new RegExp(`^${field}:([0-9.]+)`, 'm').exec(info);
  return m === null ? Number.NaN : Number(m[1]);
}

/** One connection to the run's Redis (not through the fault proxy) for its counters; bounded work only. */
export class RedisProbe {
  private readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: false });
    this.redis.on('error', () => {});
  }

  async snapshot(): Promise<RedisSnapshot> {
    const cpu = await this.redis.info('cpu');
    const mem = await this.redis.info('memory');
    return {
      cpuS: infoField(cpu, 'used_cpu_user') + infoField(cpu, 'used_cpu_sys'),
      usedMemory: infoField(mem, 'used_memory'),
      at: Date.now(),
    };
  }

  /**
   * The run's keys under `prefix`: SCAN (at most MAX_SCAN Redis keys, so the walk is bounded) grouping
   * names by user key (what follows the policy tag's `]:`), then MEMORY USAGE on the records of the
   * first SAMPLE_KEYS user keys.
   */
  async keyFigures(prefix: string, before: RedisSnapshot, after: RedisSnapshot): Promise<RedisKeyFigures> {
    const byUser = new Map<string, string[]>();
    let redisKeys = 0;
    await this.scanNames(prefix, (names) => {
      for (const n of names) {
        const i = n.lastIndexOf(']:');
        if (i < 0) continue; // the store's own records (live gateways, ids), not a user key's
        redisKeys++;
        const user = n.slice(i + 2);
        const list = byUser.get(user);
        if (list === undefined) byUser.set(user, [n]);
        else list.push(n);
      }
      return redisKeys < MAX_SCAN;
    });
    let bytes = 0;
    let sampled = 0;
    for (const names of byUser.values()) {
      if (sampled >= SAMPLE_KEYS) break;
      sampled++;
      for (const n of names) bytes += Number((await this.redis.memory('USAGE', n)) ?? 0);
    }
    const wallS = (after.at - before.at) / 1000;
    return {
      cpuShare: wallS > 0 ? (after.cpuS - before.cpuS) / wallS : 0,
      userKeys: byUser.size,
      redisKeys,
      bytesPerKeySampled: sampled > 0 ? bytes / sampled : 0,
      sampledKeys: sampled,
      usedMemoryPerKey: byUser.size > 0 ? (after.usedMemory - before.usedMemory) / byUser.size : 0,
    };
  }

  /** Redis keys holding user keys' records under `prefix` (names with the policy tag's `]:`), by a bounded SCAN. */
  async userRecords(prefix: string): Promise<number> {
    let n = 0;
    let seen = 0;
    await this.scanNames(prefix, (names) => {
      seen += names.length;
      for (const name of names) if (name.lastIndexOf(']:') >= 0) n++;
      return seen < MAX_SCAN;
    });
    return n;
  }

  /**
   * SCAN over the names under `prefix`, a batch at a time to `each`, until the cursor comes round or
   * `each` says to stop (its bound on the walk).
   */
  private async scanNames(prefix: string, each: (names: string[]) => boolean): Promise<void> {
    let cursor = '0';
    let goOn: boolean;
    do {
      const [next, names] = await this.redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      goOn = each(names);
    } while (cursor !== '0' && goOn);
  }

  /**
   * After the load: how long the run's idle keys take to leave Redis. Polls DBSIZE every POLL_MS
   * (cheap; the keys that are not user keys' records, counted once at the start, are taken off), and
   * confirms by SCAN once it reads none left, or every SCAN_EVERY_MS (another client's keys may move
   * DBSIZE); stops when no record is left or at `deadline` (wall-clock ms). Times are ms after
   * `from` (when the keys went idle); `samples` holds the records left about once a second.
   */
  async idleExpiry(prefix: string, from: number, deadline: number): Promise<IdleExpiry> {
    const records = await this.userRecords(prefix);
    const other = (await this.redis.dbsize()) - records;
    const samples: { atMs: number; records: number }[] = [{ atMs: Date.now() - from, records }];
    let lastScan = Date.now();
    let left = records;
    while (left > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      const now = Date.now();
      left = Math.max(0, (await this.redis.dbsize()) - other);
      if (left === 0 || now - lastScan >= SCAN_EVERY_MS) {
        left = await this.userRecords(prefix);
        lastScan = Date.now();
      }
      if (now - from - samples[samples.length - 1].atMs >= 1000 || left === 0)
        samples.push({ atMs: now - from, records: left });
    }
    return {
      recordsAtStart: records,
      goneAtMs: left === 0 ? samples[samples.length - 1].atMs : null,
      left,
      samples,
    };
  }

  close(): void {
    this.redis.disconnect();
  }
}
