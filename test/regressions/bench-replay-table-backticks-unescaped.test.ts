// Regression: bench/replay.ts's table header named `--spread uniform` in backticks inside its
// template literal, unescaped: the file no longer parsed (tsc: "',' expected"), so `npm run bench`
// could not load it. Its table now says it in code, escaped.
import { expect, it } from 'vitest';

it("bench/replay.ts loads and its table names the readers' --spread", async () => {
  const { replayTable } = await import('../../bench/replay.js');
  const s = { min: 1, median: 2, max: 3 };
  const table = replayTable({
    lines: 1000,
    runs: 1,
    format: 'combined',
    parseCpu: s,
    endToEndCpu: { 'central-log': s },
    endToEndWall: { 'central-log': s },
    samples: [],
  });
  expect(table).toContain('(`--spread uniform`:');
  expect(table).toContain('| readers + central-log |');
});
