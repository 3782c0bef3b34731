// @ts-check
/**
 * StrykerJS over the designs, the window logs, the in-memory store and the gateway runtime, judged by
 * the unit tests only (vitest.stryker.config.ts). `npm run mutate` runs it incrementally: results of
 * mutants whose code and covering tests did not change are taken from reports/mutation/incremental.json.
 * The machine is shared: run it under `nice`, one or two sandboxes (`--concurrency`), and one
 * directory at a time with `--mutate 'src/window/**'` to size a change. Survivors: docs/testing.md.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: [
    'src/designs/**/*.ts',
    'src/window/**/*.ts',
    'src/store/memory-store.ts',
    'src/store/memory/**/*.ts',
    'src/gateway/runtime/**/*.ts',
    '!src/gateway/runtime/index.ts', // re-exports only
  ],
  coverageAnalysis: 'perTest',
  ignoreStatic: true,
  concurrency: 2,
  timeoutMS: 10_000,
  timeoutFactor: 2,
  incremental: true,
  incrementalFile: 'reports/mutation/incremental.json',
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  ignorePatterns: ['dist', 'bench/results', 'test-artifacts', 'study-out', 'reports'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 85, break: null },
};
