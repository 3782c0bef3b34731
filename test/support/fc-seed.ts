/**
 * The seed every property test (`fc.assert`) runs with: FC_SEED when set, else a new one per run of
 * the suite (per test file; per worker in the unit project, whose files share modules), so each run
 * of the suite tries other cases than the last.
 *
 * A failure names its seed: fast-check's message carries `{ seed: N, path: "…" }`, and the reporter
 * below adds the line to reproduce it:
 *
 *   FC_SEED=N npx vitest run test/FILE.test.ts
 *
 * (every `fc.assert` of a file shares the file's seed, so that replays the failing test as it ran:
 * same cases, same shrinking). A coverage assertion beside a property (a share of cases that must
 * reach L, say) must therefore hold for any seed: its threshold is measured over many seeds, with
 * margin, and the figures are written beside it.
 */
import fc from 'fast-check';
import { expect } from 'vitest';

function seedFromEnv(): number {
  const s = process.env.FC_SEED;
  if (s === undefined || s === '') return Math.floor(Math.random() * 2 ** 31);
  const n = Number(s);
  if (!Number.isSafeInteger(n)) throw new Error(`FC_SEED must be an integer, got ${JSON.stringify(s)}`);
  return n;
}

export const FC_SEED = seedFromEnv();

/** fast-check's own report, plus the command that replays it. */
function report<T>(out: fc.RunDetails<T>): void {
  if (!out.failed) return;
  const file = expect.getState().testPath ?? 'test/FILE.test.ts';
  const rel = file.replace(/^.*?\/(test\/)/, '$1');
  throw new Error(`${fc.defaultReportMessage(out)}\n\nReproduce: FC_SEED=${out.seed} npx vitest run ${rel}`, {
    cause: out.errorInstance,
  });
}

/**
 * FC_RUNS_SCALE, a factor on every property's number of runs (at least one run is kept); 1 unless set.
 * StrykerJS sets it (vitest.stryker.config.ts): each mutant runs every property test that reaches
 * it, and most mutants fail a property in its first cases.
 */
function runsScaleFromEnv(): number {
  const s = process.env.FC_RUNS_SCALE;
  if (s === undefined || s === '') return 1;
  const x = Number(s);
  if (!(x > 0)) throw new Error(`FC_RUNS_SCALE must be a positive number, got ${JSON.stringify(s)}`);
  return x;
}

const RUNS_SCALE = runsScaleFromEnv();

/**
 * Parameters for `fc.assert`: the run's seed and a report that says how to replay a failure. The run
 * stops at 45 s, before vitest's 60 s test timeout, so a failure whose shrinking is long (the fleet
 * properties' cases hold hundreds of requests) still reports its seed; a run stopped before it
 * failed fails too.
 */
export function seeded<T>(params: Omit<fc.Parameters<T>, 'seed' | 'reporter' | 'asyncReporter'> = {}) {
  const numRuns = Math.max(1, Math.ceil((params.numRuns ?? 100) * RUNS_SCALE));
  return {
    interruptAfterTimeLimit: 45_000,
    markInterruptAsFailure: true,
    ...params,
    numRuns,
    seed: FC_SEED,
    reporter: report,
  } satisfies fc.Parameters<T>;
}
