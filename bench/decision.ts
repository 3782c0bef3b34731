/**
 * Decision cost: admit() ns/op on one hot key, each design and rate-limiter-flexible's
 * RateLimiterMemory in its own child process (bench/decision-worker.ts), each against a bare
 * Map lookup + compare timed side by side in that same process.
 */
import { DESIGN_IDS } from '../dist/index.js';
import type { DecisionSample } from './decision-worker.js';
import { median, runTsChild } from './util.js';

export interface DecisionBench {
  reps: number;
  n: number;
  samples: DecisionSample[];
  /** Headline: wall ns/op of admit() by subject, hot key with 10,000 keys held, regime 'allowed'. */
  nsPerOp: Record<string, number>;
  /** The same in CPU time. */
  cpuNsPerOp: Record<string, number>;
  /** The same two for allow() (the decision as a boolean, nothing allocated), local designs. */
  allowNsPerOp?: Record<string, number>;
  allowCpuNsPerOp?: Record<string, number>;
}

/** Designs that decide without the store on the request path (the "synced designs"). */
export const LOCAL_DESIGNS = [
  'split',
  'shared-counter',
  'assume-others',
  'track-share',
  'leases',
  'leases-ask',
];

export async function benchDecision(opts: {
  quick: boolean;
  log: (s: string) => void;
}): Promise<DecisionBench> {
  const reps = opts.quick ? 3 : 7;
  const n = opts.quick ? 50_000 : 200_000;
  const keysets = opts.quick ? [10_000] : [10_000, 1_000_000];
  const regimes = opts.quick ? ['allowed'] : ['allowed', 'limited'];
  // admit() for every design and the peer, then allow() for the designs that decide locally
  const runs: [string, 'admit' | 'allow'][] = [
    ...[...DESIGN_IDS, 'rlf-memory'].map((s): [string, 'admit'] => [s, 'admit']),
    ...LOCAL_DESIGNS.map((s): [string, 'allow'] => [s, 'allow']),
    // what input checks, a call and the key's lookup cost without any design (see decision-worker)
    ['api-floor', 'allow'],
    ['api-floor', 'admit'],
  ];
  const samples: DecisionSample[] = [];
  for (const keys of keysets)
    for (const regime of regimes) {
      // a million keys take ~10-40 s to set up per subject: the flood regime runs at 10,000 keys only
      if (keys > 10_000 && regime === 'limited') continue;
      for (const [s, call] of runs) {
        opts.log(`decision ${s}${call === 'allow' ? ' allow()' : ''} keys=${keys} ${regime}`);
        samples.push(
          await runTsChild<DecisionSample>(
            'bench/decision-worker.ts',
            [s, String(keys), regime, String(reps), String(n), call],
            300_000,
          ),
        );
      }
    }
  const head = samples.filter((x) => x.keys === 10_000 && x.regime === 'allowed');
  const nsPerOp: Record<string, number> = {};
  const cpuNsPerOp: Record<string, number> = {};
  const allowNsPerOp: Record<string, number> = {};
  const allowCpuNsPerOp: Record<string, number> = {};
  for (const x of head) {
    const allow = x.call === 'allow';
    (allow ? allowNsPerOp : nsPerOp)[x.subject] = x.nsPerOp;
    (allow ? allowCpuNsPerOp : cpuNsPerOp)[x.subject] = x.cpuNsPerOp;
  }
  nsPerOp['map-baseline'] = median(head.map((x) => x.baselineNsPerOp));
  cpuNsPerOp['map-baseline'] = median(head.map((x) => x.baselineCpuNsPerOp));
  return { reps, n, samples, nsPerOp, cpuNsPerOp, allowNsPerOp, allowCpuNsPerOp };
}
