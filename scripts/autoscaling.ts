/**
 * K follows the fleet (docs/autoscaling.md): over-admission under a flood and honest rejections for
 * a K that is right, wrong by ±50 %, and `gateways: 'auto'`, on a fleet that stays at 8 gateways and
 * on one that scales 8 → 16 → 4 → 8. Simulated with src/sim/fleet-changes.ts (the library's own
 * Gateways over a MemoryStore, on virtual time); prints a markdown table.
 *
 *   npx tsx scripts/autoscaling.ts                 # the table in docs/autoscaling.md
 *   npx tsx scripts/autoscaling.ts --seeds 2       # quicker
 *
 * Setting: L = 100 per W = 10 s (sliding), Δ = 1 s, 10 simulated minutes per run, means over seeds.
 * Flood: 20 × L per W spread evenly over the live gateways (over-admission: admitted per W after the
 * first W, the worst W-long span after the first W, and the worst first W (the flood's onset on an
 * empty store, and the fleet's start), × L; worst over seeds). Honest: one client at 80 % of L, spread evenly (honest rejections, % of its requests).
 */
import type { DesignId } from '../src/config.js';
import { type FleetStep, runFleetChanges } from '../src/sim/fleet-changes.js';

const arg = (name: string, def: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
};
const SEEDS = arg('seeds', 8);
const MINUTES = 10;
const K = 8;
const STATIC: FleetStep[] = [{ atS: 0, gateways: K }];
/** Scale out to 2K at 2.5 min, in to K/2 at 5 min, back to K at 7.5 min. */
const SCALING: FleetStep[] = [
  { atS: 0, gateways: K },
  { atS: 150, gateways: 2 * K },
  { atS: 300, gateways: K / 2 },
  { atS: 450, gateways: K },
];
const DESIGNS: DesignId[] = ['split', 'shared-counter', 'assume-others', 'track-share', 'adaptive'];
interface Case {
  name: string;
  fleet: FleetStep[];
  configured: number | 'auto';
  crash?: boolean;
  coldStart?: boolean;
  initialGateways?: number;
}
const CASES: Case[] = [
  { name: `fleet ${K}, K = ${K} (right)`, fleet: STATIC, configured: K },
  { name: `fleet ${K}, K = ${K / 2} (−50 %)`, fleet: STATIC, configured: K / 2 },
  { name: `fleet ${K}, K = ${(3 * K) / 2} (+50 %)`, fleet: STATIC, configured: (3 * K) / 2 },
  { name: `fleet ${K}, K = auto`, fleet: STATIC, configured: 'auto' },
  { name: `fleet ${K}→${2 * K}→${K / 2}→${K}, K = ${K} fixed`, fleet: SCALING, configured: K },
  { name: `fleet ${K}→${2 * K}→${K / 2}→${K}, K = auto`, fleet: SCALING, configured: 'auto' },
  {
    name: `fleet ${K}→${2 * K}→${K / 2}→${K}, K = auto, leavers crash`,
    fleet: SCALING,
    configured: 'auto',
    crash: true,
  },
  { name: `fleet ${K} started at once, K = auto`, fleet: STATIC, configured: 'auto', coldStart: true },
  {
    name: `fleet ${K} started at once, K = auto, initialGateways ${K}`,
    fleet: STATIC,
    configured: 'auto',
    coldStart: true,
    initialGateways: K,
  },
];

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const base = { limit: 100, windowS: 10, syncS: 1, minutes: MINUTES };

console.log(
  '| design | fleet and K | flood: admitted per W (× L) | flood: worst W after the first (× L) | flood: first W (× L) | honest 80 %: rejected % | K used ÷ live K |',
);
console.log('|---|---|---|---|---|---|---|');
for (const design of DESIGNS) {
  for (const c of CASES) {
    const flood = [];
    const honest = [];
    for (let seed = 1; seed <= SEEDS; seed++) {
      const { name: _name, ...given } = c;
      const p = { ...base, ...given, design, seed };
      flood.push(runFleetChanges({ ...p, honestLoad: 0, floodLoad: 20 }));
      honest.push(runFleetChanges({ ...p, honestLoad: 0.8, floodLoad: 0 }));
    }
    console.log(
      `| ${design} | ${c.name} | ${mean(flood.map((r) => r.admittedPerWindow)).toFixed(3)} | ` +
        `${Math.max(...flood.map((r) => r.worstWindow)).toFixed(2)} | ` +
        `${Math.max(...flood.map((r) => r.firstWindow)).toFixed(2)} | ` +
        `${mean(honest.map((r) => r.honestRejectedPct)).toFixed(2)} | ` +
        `${mean(flood.map((r) => r.kRatio)).toFixed(2)} |`,
    );
  }
}
