import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Live tests: a real redis-server or Redis Cluster, child processes, the browser, or real time and
 * real memory measured. They are named *.live.test.ts, wherever they are (one way to mark them: a
 * regression keeps its bug's name, with .live before .test.ts); everything else under test/ is a
 * unit test, and a unit test that starts redis-server or a child process fails, naming this project
 * (test/support/unit-guard.ts).
 */
export const LIVE = ['test/**/*.live.test.ts'];

/**
 * Whole CLI commands run in-process: the docs' example outputs regenerated (`fleetlimit advise` runs
 * of 7–8 s each, 25 s of the unit project's 67 s), an advise run rerun row by row. Deterministic like
 * a unit test, but the quick loop (`npm run test:unit`) leaves them to `npm test`: named
 * *.commands.test.ts, they run in their own project beside the unit one.
 */
export const COMMANDS = ['test/**/*.commands.test.ts'];

/**
 * Live files that measure memory and no time: heaps after full collections and a child's bytes per
 * key, in-process, no server, CPU-bound on one core. In the live project's one-file-at-a-time queue
 * they left the other core idle (84 s of its 389 at load 10); in a project of their own (forked
 * workers with --expose-gc: a heap is its process's own) they share the unit and commands files'
 * workers, which measure no time either, and none of the live project's real-time bounds has them
 * as a neighbour. A live file that asserts a time bound or starts a server never goes here.
 */
export const MEMORY = [
  'test/replay/memory.live.test.ts',
  'test/replay/parse-memory.live.test.ts',
  'test/gateway/idle-reclaim-million-keys.live.test.ts',
  'test/regressions/key-bytes-stale-retry-fields-on-every-key.live.test.ts',
];

/**
 * Concurrent tests at once in a live file (vitest's default is 5): test/docs/code-examples runs its
 * store-away runs, two per example, as one batch that waits until all have started, so all must run
 * at once (it checks it has no more than this).
 */
export const LIVE_MAX_CONCURRENCY = 64;

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
          exclude: [...configDefaults.exclude, ...LIVE, ...COMMANDS, '.stryker-tmp/**'],
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
          name: 'commands',
          include: COMMANDS,
          exclude: [...configDefaults.exclude, ...LIVE, '.stryker-tmp/**'],
          // in-process, as the unit tests: no redis-server, no child
          setupFiles: ['test/support/unit-guard.ts'],
          pool: 'threads',
          isolate: false,
          maxWorkers: '100%',
          fileParallelism: true,
          // beside the unit project (same group, one pool): its files start as the unit files run
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'live-memory',
          include: MEMORY,
          exclude: [...configDefaults.exclude, '.stryker-tmp/**'],
          pool: 'forks',
          execArgv: ['--expose-gc'],
          // its files take turns with the unit and commands files for the group's workers, one per
          // core (vitest requires one maxWorkers per group): the group's CPU work, spread on both
          maxWorkers: '100%',
          fileParallelism: true,
          isolate: false,
          // beside the unit and commands projects, before the live one
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'live',
          include: LIVE,
          exclude: [...configDefaults.exclude, ...MEMORY, '.stryker-tmp/**'],
          pool: 'forks',
          execArgv: ['--expose-gc'],
          maxConcurrency: LIVE_MAX_CONCURRENCY,
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
