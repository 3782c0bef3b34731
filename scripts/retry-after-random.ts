// npx tsx scripts/retry-after-random.ts [--lib DIR]: Retry-After against the true wait over random
// fleets, for the shared-counter family. K = 3 gateways on one MemoryStore, W = 10 s, Δ = 200 ms (syncs
// every Δ at spread phases, run in time order), 200 runs of 60 arrivals each (L = 5…20 per run, gaps of
// 0…600 ms, a random gateway, one request in five of cost 2; a fixed LCG seed). Every rejection a retry
// can succeed for is measured: its error, Retry-After − max(1, true wait), the true wait being the first
// instant the central log would admit it (every admit of the fleet counted). Printed per design: the
// rejections, the error's range, how many were earlier than the true wait − Δ, how many later than the
// true wait + Δ, how many within Δ either side, and how many said Δ or less (mostly: its next sync, it
// cannot know).
// --lib: the library to measure (default: this checkout's src/; e.g. a build of main's dist/ for "before").
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const libArg = process.argv.indexOf('--lib');
const lib =
  libArg > 0
    ? pathToFileURL(resolve(process.argv[libArg + 1], 'index.js')).href
    : new URL('../src/index.ts', import.meta.url).href;
const { Gateway, MemoryStore } = await import(lib);

const K = 3;
const W = 10_000;
const D = 200;
const RUNS = 200;
const ARRIVALS = 60;
const FAMILY = ['shared-counter', 'assume-others', 'track-share', 'adaptive', 'adaptive-early'];

let seed = 0;
/** A linear congruential generator in [0, 1): the same sequence for every design. */
const random = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};

console.log('| design | rejections | error (ms) | early > Δ | late > Δ | within ±Δ | said ≤ Δ |');
console.log('|---|--:|---|--:|--:|--:|--:|');
for (const design of FAMILY) {
  seed = 12345;
  const errors: number[] = [];
  let short = 0;
  for (let run = 0; run < RUNS; run++) {
    const L = 5 + Math.floor(random() * 16);
    const store = new MemoryStore();
    const gws = Array.from(
      { length: K },
      (_, i) => new Gateway({ id: `g${i}`, design, limit: L, windowMs: W, gateways: K, syncMs: D }, store),
    );
    const nextSync = gws.map((_, i) => Math.floor(((i + 0.5) * D) / K));
    // every sync due by t, in time order across the fleet (ties: by gateway)
    const advance = (t: number) => {
      for (;;) {
        let h = -1;
        for (let i = 0; i < K; i++) if (nextSync[i] <= t && (h < 0 || nextSync[i] < nextSync[h])) h = i;
        if (h < 0) return;
        gws[h].sync(nextSync[h]);
        nextSync[h] += D;
      }
    };
    const admits: number[] = [];
    let t = 0;
    for (let n = 0; n < ARRIVALS; n++) {
      t += Math.floor(random() * 600);
      const g = Math.floor(random() * K);
      const cost = random() < 0.2 ? 2 : 1;
      advance(t);
      const d = gws[g].admit('k', t, cost);
      if (d.allowed) {
        for (let c = 0; c < cost; c++) admits.push(t);
        continue;
      }
      if (d.exceedsLimit) continue;
      const live = admits
        .map((x) => x + W)
        .filter((e) => e > t)
        .sort((a, b) => a - b);
      const leave = live.length + cost - L;
      const truth = leave <= 0 ? t : live[leave - 1];
      errors.push(d.retryAfterMs - Math.max(1, truth - t));
      if (d.retryAfterMs <= D) short++;
    }
  }
  errors.sort((a, b) => a - b);
  const early = errors.filter((e) => e < -D - 1).length;
  const late = errors.filter((e) => e > D + 1).length;
  const within = errors.filter((e) => Math.abs(e) <= D + 1).length;
  const pct = (n: number) => `${n} (${((100 * n) / errors.length).toFixed(1)} %)`;
  console.log(
    `| ${design} | ${errors.length} | ${errors[0]} … ${errors.at(-1)} | ${pct(early)} | ${pct(late)} | ${pct(within)} | ${pct(short)} |`,
  );
}
