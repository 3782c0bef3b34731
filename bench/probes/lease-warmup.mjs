// How fast a lease design's grant follows a new key's demand: one gateway of K, one key at a steady
// rate from its first request, synced every Δ, on virtual time; the share admitted in each second.
// Usage: npm run build && node bench/probes/lease-warmup.mjs [LIMIT=1e9] [RATE/s=100000] [SECONDS=20] [DESIGN=leases]
import { Gateway, MemoryStore } from '../../dist/index.js';

const limit = Number(process.argv[2] ?? 1e9);
const rate = Number(process.argv[3] ?? 100_000);
const seconds = Number(process.argv[4] ?? 20);
const design = process.argv[5] ?? 'leases';
const gw = new Gateway(
  { id: 'g1', design, limit, windowMs: 60_000, gateways: 8, syncMs: 1000 },
  new MemoryStore(),
);
const perMs = rate / 1000;
let now = 1_700_000_000_000;
for (let s = 0; s < seconds; s++) {
  let admitted = 0;
  for (let ms = 0; ms < 1000; ms++, now++) for (let i = 0; i < perMs; i++) if (gw.allow('k', now)) admitted++;
  gw.sync(now);
  console.log(`second ${s + 1}: ${((100 * admitted) / (perMs * 1000)).toFixed(1)} % admitted`);
}
