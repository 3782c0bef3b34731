import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    execArgv: ['--expose-gc'],
    // One file at a time: the fault, Redis and HTTP suites measure real time, and a CPU-heavy
    // neighbour (a million keys, a browser) stalls their event loops past the bounds they assert.
    fileParallelism: false,
  },
});
