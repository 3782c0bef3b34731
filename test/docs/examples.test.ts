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
