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
 * of 7–8 s each, 25 s of the unit project's 67 s), an advise run rerun row by row; and the docs' code
 * examples type-checked against src/ (tsc in-process, 4-8 s: the check half of
 * test/docs/code-examples.live.test.ts, whose compile held up the timed live files behind it).
 * Deterministic like a unit test, but the quick loop (`npm run test:unit`) leaves them to `npm test`:
 * named *.commands.test.ts, they run in their own project beside the unit one.
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
 * Live files that assert no time bound, run two at a time after the unit group and before the timed
 * live files. In the live project's one-file-at-a-time queue each left a core idle: a cluster's
 * start (`redis-cli --cluster create` waits for the nodes to agree), a fast-check property's round
 * trips to one redis-server, a browser's run. Each here was read for what real time it depends on:
 * no event-loop lag, latency, deadline or "within N ms" bound, no rate or count that depends on the
 * CPU; stores on the caller's clock (virtual time) or windows of a minute against runs of seconds; no
 * redis-server restarted on its port (another file's server could take the port meanwhile), no
 * redis-server paused or killed. Their neighbour is another file of this list, never a timed one.
 * - cluster/store-contract, cluster/live-gateways, cluster/merged-sync-call: the store contracts and
 *   merged calls on a local cluster, caller clock (merged-sync-call's t0 is only a base for it).
 * - cluster/mixed-slot-call, regressions/cluster-slot-map-refreshed-mid-sync-fails-it: slots migrated
 *   before the sync is sent, not under it; the slot map's refresh is forced by a patched pipeline().
 *   (cluster/group-call and cluster/carried-key-check stay timed: they hand a slot over while a call
 *   is retried on TRYAGAIN, which ioredis gives up after 16 tries 100 ms apart.)
 * - sidecar/cluster: limit 2 a minute, three asks and a request; the sync count it checks only grows
 *   with time; its child starts without a deadline.
 * - store/redis/differential, reset-all.property, reset-key.property, refunds.property, store-contract,
 *   buckets, exact-packed-runs, sync-packing, sync-wire, keys, and the regressions
 *   buckets-fixed-window-start-in-previous-bucket, central-log-cost-over-4000-unpack,
 *   redis-oldest-expiry-stale-after-void, lease-cut-off-past-ttl-regranted,
 *   policies-same-key-share-one-counter: one redis-server, every store on the caller's clock (keys
 *   kept by expiryMarginMs or windows far past the run), decisions compared with MemoryStore's.
 * - web/explorer: headless Chromium over the simulator, its numbers against the CLI's; the one wait
 *   is a 45 s guard against a page that never finishes (about 9 s here), not a bound on its speed.
 *   (web/report stays timed: an expect.poll of 1 s for a re-layout.)
 * - replay/bin: the built CLI on the example logs; it may build dist/ (npm run build) first, and is
 *   the only file here that does: cli/bin, package/require and docs/code-examples, timed or not,
 *   build in the live project, after this one, so two builds never run at once.
 * - regressions/memory-store-unsorted-push-hangs: a child's 20 s timeout catches the hang the issue
 *   was (the child takes under a second); nothing else is timed. regressions/config-relations-unchecked
 *   likewise (a `fleetlimit validate` child, 30 s).
 * - faults/key-flood-honest-key, faults/attacker-keys: gateways, store calls and their timeouts on a
 *   virtual clock the test steps, replies held to the virtual instant a sync would land, so every
 *   decision is the seed's "on any machine at any load"; real time only in guards against a call that
 *   never lands (20 s; attacker-keys' 20 s store timeout, eight times its slowest sync with two busy
 *   loops beside it) and its heap, which is its own process's.
 * A live file that asserts a time bound, or that restarts, pauses or kills a server, never goes here.
 */
export const UNTIMED = [
  'test/cluster/store-contract.live.test.ts',
  'test/cluster/live-gateways.live.test.ts',
  'test/cluster/merged-sync-call.live.test.ts',
  'test/cluster/mixed-slot-call.live.test.ts',
  'test/regressions/cluster-slot-map-refreshed-mid-sync-fails-it.live.test.ts',
  'test/sidecar/cluster.live.test.ts',
  'test/store/redis/differential.live.test.ts',
  'test/store/redis/reset-all.property.live.test.ts',
  'test/store/redis/reset-key.property.live.test.ts',
  'test/store/redis/refunds.property.live.test.ts',
  'test/store/redis/store-contract.live.test.ts',
  'test/store/redis/buckets.live.test.ts',
  'test/store/redis/exact-packed-runs.live.test.ts',
  'test/store/redis/sync-packing.live.test.ts',
  'test/store/redis/sync-wire.live.test.ts',
  'test/store/redis/keys.live.test.ts',
  'test/regressions/buckets-fixed-window-start-in-previous-bucket.live.test.ts',
  'test/regressions/central-log-cost-over-4000-unpack.live.test.ts',
  'test/regressions/redis-oldest-expiry-stale-after-void.live.test.ts',
  'test/regressions/lease-cut-off-past-ttl-regranted.live.test.ts',
  'test/regressions/policies-same-key-share-one-counter.live.test.ts',
  'test/web/explorer.live.test.ts',
  'test/replay/bin.live.test.ts',
  'test/regressions/memory-store-unsorted-push-hangs.live.test.ts',
  'test/regressions/config-relations-unchecked.live.test.ts',
  'test/faults/key-flood-honest-key.live.test.ts',
  'test/faults/attacker-keys.live.test.ts',
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
          name: 'live-untimed',
          include: UNTIMED,
          exclude: [...configDefaults.exclude, '.stryker-tmp/**'],
          pool: 'forks',
          execArgv: ['--expose-gc'],
          maxConcurrency: LIVE_MAX_CONCURRENCY,
          // two files at a time, one worker each (modules loaded once per worker, as in the live
          // project); after the unit group, whose CPU work would stretch theirs, and before the live
          // project, whose timed files then have no neighbour
          fileParallelism: true,
          maxWorkers: 2,
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'live',
          include: LIVE,
          exclude: [...configDefaults.exclude, ...MEMORY, ...UNTIMED, '.stryker-tmp/**'],
          pool: 'forks',
          execArgv: ['--expose-gc'],
          maxConcurrency: LIVE_MAX_CONCURRENCY,
          // One file at a time, after the unit tests and the untimed live files (UNTIMED): the fault,
          // Redis and HTTP suites measure real time, and a CPU-heavy neighbour (a million keys, a
          // browser) stalls their event loops past the bounds they assert.
          fileParallelism: false,
          // One worker for them all, its modules loaded once: a fresh process per file cost ~3 s of
          // start and import each, 250 s over 78 files at load 11 (wall 978 s against 727 s in the
          // files; 688 s with this). Each file starts and stops its own servers and children.
          isolate: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
