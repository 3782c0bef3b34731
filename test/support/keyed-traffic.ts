/**
 * Open-loop traffic over many API keys through a fleet of front ends (NGINX ports): Poisson arrivals
 * at `ratePerS` in all, each request's key drawn by Zipf popularity and its port at random (uneven
 * from moment to moment, even on average). Seeded; bounded in count and time; answers counted.
 */
import { Agent, request } from 'node:http';
import { zipfWeights } from '../../src/sim/many-keys.js';
import { Random } from '../../src/sim/random.js';

export interface KeyedTrafficOptions {
  ports: number[];
  ratePerS: number;
  durationMs: number;
  keys: number;
  /** Zipf exponent of the keys' popularity. */
  zipf: number;
  seed: number;
  /** The header that carries the key (the API key). */
  header: string;
  /** Outstanding requests at most; arrivals past it are skipped and not counted as sent. */
  maxInFlight?: number;
}

export interface KeyedTrafficResult {
  sent: number;
  /** Answers by key, then by status (0: the request failed). */
  byKey: Map<string, Record<number, number>>;
}

export async function keyedTraffic(o: KeyedTrafficOptions): Promise<KeyedTrafficResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const rng = new Random(o.seed);
  const cdf = Array.from(zipfWeights(o.keys, o.zipf));
  for (let i = 1; i < cdf.length; i++) cdf[i] += cdf[i - 1];
  const pick = (): string => {
    const u = rng.uniform() * cdf[cdf.length - 1];
    let i = 0;
    while (i < cdf.length - 1 && cdf[i] < u) i++;
    return `k${i}`;
  };
  const byKey = new Map<string, Record<number, number>>();
  const count = (key: string, status: number) => {
    let s = byKey.get(key);
    if (s === undefined) byKey.set(key, (s = {}));
    s[status] = (s[status] ?? 0) + 1;
  };
  const maxInFlight = o.maxInFlight ?? 256;
  let inFlight = 0;
  let sent = 0;
  const pending: Promise<void>[] = [];
  const one = (port: number, key: string) =>
    new Promise<void>((res) => {
      inFlight++;
      const req = request(
        { host: '127.0.0.1', port, path: `/items/${key}`, headers: { [o.header]: key }, agent },
        (r) => {
          r.resume();
          r.on('end', () => {
            count(key, r.statusCode ?? 0);
            inFlight--;
            res();
          });
        },
      );
      req.on('error', () => {
        count(key, 0);
        inFlight--;
        res();
      });
      req.end();
    });
  const startedAt = Date.now();
  let at = rng.exponential(o.ratePerS / 1000);
  while (at < o.durationMs) {
    const now = Date.now() - startedAt;
    while (at <= now && at < o.durationMs) {
      const key = pick();
      const port = o.ports[Math.floor(rng.uniform() * o.ports.length)];
      if (inFlight < maxInFlight) {
        pending.push(one(port, key));
        sent++;
      }
      at += rng.exponential(o.ratePerS / 1000);
    }
    await new Promise((r) => setTimeout(r, Math.max(1, Math.min(5, at - (Date.now() - startedAt)))));
  }
  await Promise.race([Promise.all(pending), new Promise((r) => setTimeout(r, 3000))]);
  agent.destroy();
  return { sent, byKey };
}
