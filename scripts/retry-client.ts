// npx tsx scripts/retry-client.ts [--lib DIR]: a client that obeys Retry-After exactly, per design.
// A fleet of K = 3 gateways (L = 10 per W = 10 s, Δ = 1 s, one MemoryStore, syncs every Δ at spread
// phases). The client sends every 500 ms (twice the limit's rate) until its first 429; from then on it
// waits exactly what each 429 says before retrying, and after an admit sends again 500 ms later. Over
// the 10 s after its first 429 it counts its retries (requests sent at a Retry-After) and how many were
// admitted, obeying retryAfterMs (ms) or the Retry-After header (whole seconds, rounded up), and
// every admit it got in those 10 s (at most 10 can free: its own first ten age out then). Two
// routings: every request to one gateway (pinned), or round robin over the three.
// --lib: the library to measure (default: this checkout's src/; e.g. a build of main's dist/ for "before").
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const libArg = process.argv.indexOf('--lib');
const lib =
  libArg > 0
    ? pathToFileURL(resolve(process.argv[libArg + 1], 'index.js')).href
    : new URL('../src/index.ts', import.meta.url).href;
const { Gateway, MemoryStore } = await import(lib);

const DESIGNS = [
  'central-log',
  'split',
  'shared-counter',
  'assume-others',
  'track-share',
  'leases',
  'leases-ask',
  'adaptive',
];
const K = 3;
const L = 10;
const W = 10_000;
const D = 1000;
const GAP = 500;
const SPAN = 10_000;

interface Outcome {
  retries: number;
  admitted: number;
  /** Every admit in the span, retries or not. */
  all: number;
}

function run(design: string, routing: 'pinned' | 'round robin', wait: 'ms' | 'header'): Outcome {
  const store = new MemoryStore();
  const gws = Array.from(
    { length: K },
    (_, i) => new Gateway({ id: `g${i}`, design, limit: L, windowMs: W, gateways: K, syncMs: D }, store),
  );
  const nextSync = gws.map((_, i) => Math.floor(((i + 0.5) * D) / K));
  let t = 0;
  let n = 0;
  let firstReject = Number.NaN;
  let retrying = false;
  const out: Outcome = { retries: 0, admitted: 0, all: 0 };
  while (Number.isNaN(firstReject) || t < firstReject + SPAN) {
    for (let g = 0; g < K; g++) {
      while (nextSync[g] <= t) {
        gws[g].sync(nextSync[g]);
        nextSync[g] += D;
      }
    }
    const g = routing === 'pinned' ? 0 : n % K;
    n++;
    const d = gws[g].admit('client', t);
    if (d.allowed && t > firstReject) out.all++;
    if (retrying && t > firstReject) {
      out.retries++;
      if (d.allowed) out.admitted++;
    }
    if (d.allowed) {
      retrying = false;
      t += GAP;
      continue;
    }
    if (Number.isNaN(firstReject)) firstReject = t;
    retrying = true;
    const ms = d.retryAfterMs ?? D;
    t += wait === 'ms' ? ms : 1000 * Math.max(1, Math.ceil(ms / 1000));
  }
  return out;
}

console.log('| design | routing | obeys | retries in 10 s | admitted | all admits in 10 s |');
console.log('|---|---|---|--:|--:|--:|');
for (const design of DESIGNS) {
  for (const routing of ['pinned', 'round robin'] as const) {
    for (const wait of ['ms', 'header'] as const) {
      const o = run(design, routing, wait);
      console.log(`| ${design} | ${routing} | ${wait} | ${o.retries} | ${o.admitted} | ${o.all} |`);
    }
  }
}
