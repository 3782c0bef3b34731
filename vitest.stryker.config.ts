import { configDefaults, defineConfig } from 'vitest/config';
import { LIVE } from './vitest.config.js';

/**
 * The unit project's tests of the mutated code, for StrykerJS (`npm run mutate`, stryker.config.mjs):
 * unit files only (a mutant is judged by deterministic tests: no redis-server, child process or real
 * time), with the unit project's setup and guard, from the folders that test src/designs, src/window,
 * src/store/memory-store.ts and src/gateway/runtime (and the HTTP adapters and the simulator's
 * engine-against-reference tests, which drive them). The advisor, report, web, CLI, sidecar and docs
 * tests are left out: they reach this code only through the simulator or a server, at minutes per
 * mutant, and two of them time out under Stryker's instrumentation on a shared machine. Stryker runs
 * it with one worker per sandbox; modules are shared between files as in the unit project.
 *
 * STRYKER_SCOPE narrows the files to those of one mutated folder (SCOPES), for a run of that folder
 * alone on a busy machine: every mutant runs only the tests that reach it, but TimeLog and the store
 * are reached by nearly every test, and a mutant that loops waits out the summed time of all of them.
 * A folder's score so measured is a lower bound of the score with every file.
 */
const ALL = [
  'test/designs/**/*.test.ts',
  'test/window/**/*.test.ts',
  'test/store/**/*.test.ts',
  'test/gateway/**/*.test.ts',
  'test/regressions/**/*.test.ts',
  'test/http/**/*.test.ts',
  'test/sim/engine-vs-reference.test.ts',
  'test/sim/leases-never-over-limit.property.test.ts',
];

const SCOPES: Record<string, string[]> = {
  window: ['test/window/**/*.test.ts', 'test/store/**/*.test.ts', 'test/regressions/memory-store-*.test.ts'],
  'memory-store': [
    'test/store/**/*.test.ts',
    'test/regressions/memory-store-*.test.ts',
    'test/regressions/lease-*.test.ts',
    'test/regressions/stale-seq-lock-out.test.ts',
  ],
  runtime: ['test/gateway/runtime/**/*.test.ts', 'test/gateway/*.test.ts', 'test/regressions/**/*.test.ts'],
  // batch-builder.ts and read-turns.ts: their own tests and the sync loop's, the parts, key-cap and
  // reset tests that build batches through it (the runtime scope's gateway files reach them through
  // every request, at seconds per mutant): a lower bound of the runtime scope's score
  batch: [
    'test/gateway/runtime/batch-builder*.test.ts',
    'test/gateway/runtime/read-turns.test.ts',
    'test/gateway/runtime/sync-loop.test.ts',
    'test/gateway/runtime/sync-in-parts.test.ts',
    'test/gateway/runtime/key-cap.test.ts',
    'test/gateway/runtime/reset-key.test.ts',
  ],
  // sync-loop.ts, async-gateway.ts (and the parts split from them in issue 34), async-options.ts and
  // metrics.ts: the runtime folder's own tests (seconds in all), without the gateway and regression
  // files the runtime scope adds (every mutant of these files is reached by nearly every one of them,
  // at minutes per mutant): a lower bound of the runtime scope's score
  loop: ['test/gateway/runtime/**/*.test.ts'],
  // metrics.ts alone: its own tests, the runtime tests that scrape a gateway's metrics and the metrics
  // regressions (under a second in all; the loop scope's other files never reach it): a lower bound
  // of the runtime scope's score
  metrics: [
    'test/gateway/runtime/metrics.test.ts',
    'test/gateway/runtime/async-gateway.test.ts',
    'test/gateway/runtime/auto-gateways.test.ts',
    'test/gateway/runtime/early-syncs.test.ts',
    'test/regressions/removed-envoy-limit-stays-in-metrics.test.ts',
    'test/regressions/stale-seq-lock-out.test.ts',
  ],
  // async-options.ts alone: its own tests, the gateway's (their option errors and defaults), the
  // gateways 'auto' configuration and the config regressions, without the loop scope's other files
  // (every gateway they create resolves its options, reaching every mutant): a lower bound of the
  // runtime scope's score
  options: [
    'test/gateway/runtime/async-options.test.ts',
    'test/gateway/runtime/async-gateway.test.ts',
    'test/gateway/runtime/async-gateway.edges.test.ts',
    'test/gateway/auto-gateways-config.test.ts',
    'test/regressions/config-*.test.ts',
    'test/regressions/validate-hides-bad-policy-behind-bad-top-level.test.ts',
    'test/regressions/busy-event-loop-taken-for-store-outage.test.ts',
  ],
  // leases.ts (with lease-mean.ts and prefix-length.ts) alone: its own tests, the lease regressions
  // and the fleet-bounds property (the designs scope's simulator files reach it too, at seconds per
  // mutant: this is a lower bound of that score)
  leases: [
    'test/designs/leases*.test.ts',
    'test/designs/key-steps.test.ts',
    'test/designs/traits.test.ts',
    'test/designs/refunds.property.test.ts',
    'test/designs/fleet-bounds.property.test.ts',
    'test/regressions/lease-*.test.ts',
    'test/regressions/leases-*.test.ts',
    'test/gateway/runtime/key-cap-leases.test.ts',
  ],
  // adaptive.ts and key-steps.ts: the adaptive tests (adaptive-early's extend AdaptiveKey), key-steps,
  // central-log (its NEED_STORE path), traits and the cached and fleet-bounds properties, without the
  // designs scope's simulator and regression files (seconds per mutant): a lower bound of that score
  adaptive: [
    'test/designs/adaptive*.test.ts',
    'test/designs/key-steps.test.ts',
    'test/designs/central-log.test.ts',
    'test/designs/traits.test.ts',
    'test/designs/cached.property.test.ts',
    'test/designs/fleet-bounds.property.test.ts',
  ],
  // synced.ts (SyncedKey: shared-counter, assume-others, track-share and adaptive's base): the unit
  // tests that drive one key of those designs, the cached, fleet-bounds and reset properties and the
  // regressions of their views and Retry-After, without adaptive-early's (its local bound runs
  // seconds per mutant) or the simulator's files: a lower bound of the designs scope's score
  synced: [
    'test/designs/adaptive.test.ts',
    'test/designs/adaptive.edges.test.ts',
    'test/designs/synced*.test.ts',
    'test/designs/key-steps.test.ts',
    'test/designs/traits.test.ts',
    'test/designs/cached.property.test.ts',
    'test/designs/fleet-bounds.property.test.ts',
    'test/designs/reset-key.property.test.ts',
    'test/regressions/synced-*.test.ts',
    'test/regressions/reads-follow-requests-*.test.ts',
    'test/regressions/refunded-admit-*.test.ts',
    'test/regressions/remaining-rises-*.test.ts',
    'test/regressions/retry-after-*.test.ts',
    'test/regressions/gateway-admit-log-*.test.ts',
  ],
  designs: [
    'test/designs/**/*.test.ts',
    'test/gateway/decision.test.ts',
    'test/regressions/**/*.test.ts',
    'test/sim/engine-vs-reference.test.ts',
    'test/sim/leases-never-over-limit.property.test.ts',
  ],
};

function include(): string[] {
  const scope = process.env.STRYKER_SCOPE;
  if (scope === undefined || scope === '') return ALL;
  const files = SCOPES[scope];
  if (files === undefined) {
    throw new Error(
      `STRYKER_SCOPE must be one of ${Object.keys(SCOPES).join(', ')}, got ${JSON.stringify(scope)}`,
    );
  }
  return files;
}

export default defineConfig({
  test: {
    name: 'unit',
    include: include(),
    exclude: [
      ...configDefaults.exclude,
      ...LIVE,
      '.stryker-tmp/**',
      // 77 s of the 300 s these folders take on a loaded machine, and every design mutant it covers
      // would run it: the targets it checks are the simulator's (src/sim), covered by its own tests
      'test/designs/adaptive-early.targets.test.ts',
    ],
    setupFiles: ['test/support/unit-guard.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'threads',
    isolate: false,
    // the same cases on every run (a mutant must not be killed by one seed and missed by the next),
    // and a tenth of each property's runs (test/support/fc-seed.ts): most mutants fail in the first
    env: { FC_SEED: '1', FC_RUNS_SCALE: process.env.FC_RUNS_SCALE ?? '0.1' },
  },
});
