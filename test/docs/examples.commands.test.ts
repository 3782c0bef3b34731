// The docs' example outputs are what the code prints now, and the timed tables they quote are the
// results files' own lines: every block marked `<!-- output: fleetlimit … -->` or
// `<!-- include: FILE lines A-B -->` (test/docs/doc-blocks.ts) is regenerated here and compared.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docFiles, generatedBlocks, ROOT } from './doc-blocks.js';
import { freshBody } from './regenerate.js';

const FIX = 'run `npm run docs:examples` to rewrite it (and read the diff: a changed figure is news)';

describe('the generated blocks of README.md and docs/ are up to date', () => {
  const all = docFiles().flatMap((file) =>
    generatedBlocks(readFileSync(join(ROOT, file), 'utf8'), file).map((block) => ({ file, block })),
  );

  it('finds the marked blocks (an output and an include at least)', () => {
    expect(all.some(({ block }) => block.kind === 'output')).toBe(true);
    expect(all.some(({ block }) => block.kind === 'include')).toBe(true);
  });

  it('docs/benchmarks.md reads the run bench/results/latest.md holds', () => {
    // the page quotes latest.md's figures in prose: a new run is news, so the page names the run it read
    const latest = readFileSync(join(ROOT, 'bench/results/latest.md'), 'utf8');
    const at = /^Produced by `npm run bench` on (\d{4}-\d\d-\d\dT\d\d:\d\d)/m.exec(latest)?.[1];
    expect(at, 'bench/results/latest.md names no run').toBeDefined();
    const page = readFileSync(join(ROOT, 'docs/benchmarks.md'), 'utf8');
    expect(
      page.includes(`produced ${at}`),
      `docs/benchmarks.md does not name the run of bench/results/latest.md (${at}): read its figures against that run, then write "produced ${at}"`,
    ).toBe(true);
  });

  for (const { file, block } of all) {
    const what =
      block.kind === 'output'
        ? `what \`fleetlimit ${block.args.join(' ')}\` prints`
        : `lines ${block.from}-${block.to ?? ''} of ${block.file}`;
    it(`${file}:${block.line} holds ${what}`, async () => {
      const fresh = await freshBody(block);
      expect(fresh.trim(), `${file}:${block.line}: the command/file gave nothing`).not.toBe('');
      expect(block.body, `${file}:${block.line} differs from ${what}: ${FIX}`).toBe(fresh);
    });
  }
});
