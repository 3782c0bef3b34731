import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Live tests: a real redis-server or Redis Cluster, child processes, the browser, or real time and
 * real memory measured. Everything else under test/ is a unit test, so a new file is unit unless it
 * matches here. A live test in a folder that mirrors src/ is named *.live.test.ts; the files listed
 * by name keep names they cannot change (a regression is named after its bug).
 */
export const LIVE = [
  'test/redis/**/*.test.ts',
  'test/cluster/**/*.test.ts',
  'test/faults/**/*.test.ts',
  'test/integration/**/*.test.ts',
  'test/**/*.live.test.ts',
  'test/fleet/fault-proxy.test.ts', // real sockets, latency measured
  'test/docs/code-examples.test.ts', // README's examples as node children on a redis-server
  'test/gateway/policies.test.ts', // on the in-memory store and a redis-server
  // regressions that need redis-server or a child process
  'test/regressions/buckets-fixed-window-start-in-previous-bucket.test.ts',
  'test/regressions/central-log-cost-over-4000-unpack.test.ts',
  'test/regressions/cluster-slot-map-refreshed-mid-sync-fails-it.test.ts',
  'test/regressions/config-relations-unchecked.test.ts',
  'test/regressions/exact-log-one-member-per-unit-of-cost.test.ts',
  'test/regressions/lease-ask-landing-before-its-sync-released.test.ts',
  'test/regressions/lease-cut-off-past-ttl-regranted.test.ts',
  'test/regressions/leases-ask-ask-and-sync-cross.test.ts',
  'test/regressions/memory-store-unsorted-push-hangs.test.ts',
  'test/regressions/policies-same-key-share-one-counter.test.ts',
  'test/regressions/redis-resend-after-noscript-overtaken.test.ts',
  'test/regressions/redis-scripts-not-loaded-before-use.test.ts',
  'test/regressions/store-refusals-counted-as-timeouts.test.ts',
  'test/regressions/sync-lock-out.redis.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...LIVE, '.stryker-tmp/**'],
          // starting redis-server or a child process throws, naming the live project
          setupFiles: ['test/support/unit-guard.ts'],
          // Deterministic and self-contained, so files run side by side, one worker per core (the
          // default leaves one core idle), and share loaded modules: a fresh module graph per file
          // cost 52 s of CPU against 23 s. A test that changes shared state puts it back (fake
          // timers, spies and patches are restored in afterEach or finally).
          pool: 'threads',
          isolate: false,
          maxWorkers: '100%',
          fileParallelism: true,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'live',
          include: LIVE,
          exclude: [...configDefaults.exclude, '.stryker-tmp/**'],
          pool: 'forks',
          execArgv: ['--expose-gc'],
          // One file at a time, after the unit tests: the fault, Redis and HTTP suites measure real
          // time, and a CPU-heavy neighbour (a million keys, a browser) stalls their event loops
          // past the bounds they assert.
          fileParallelism: false,
          // One worker for them all, its modules loaded once: a fresh process per file cost ~3 s of
          // start and import each, 250 s over 78 files at load 11 (wall 978 s against 727 s in the
          // files; 688 s with this). Each file starts and stops its own servers and children.
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
