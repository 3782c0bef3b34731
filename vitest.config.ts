import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    execArgv: ['--expose-gc'],
    // several files wait on real time (Redis, HTTP, fault timers): run three at once on two cores
    maxWorkers: 3,
  },
});
