/** The parts `npm run bench -- --only PART` runs alone (bench/run.ts), named here so docs can be checked. */
export const BENCH_PARTS = ['decision', 'sync', 'http', 'sidecar', 'sim', 'replay', 'refund'] as const;
export type BenchPart = (typeof BENCH_PARTS)[number];
