// npm run docs:examples [-- --check]: rewrites, in README.md, docs/*.md and bench/README.md, every block
// marked `<!-- output: fleetlimit … -->` with what that command prints now (in this process, from src/),
// and every `<!-- include: FILE lines A-B -->` … `<!-- /include -->` with those lines of FILE (a results
// file a timed run wrote: bench/results/latest.md, docs/fleet-compare.md; those runs are not repeated
// here). --check writes nothing and exits 1 if a block differs. test/docs/examples.commands.test.ts checks the same.
// Run under tsx (the npm script does): it imports the TypeScript sources.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { docFiles, generatedBlocks, ROOT, withBodies } from '../test/docs/doc-blocks.ts';
import { freshBodies } from '../test/docs/regenerate.ts';

const check = process.argv.includes('--check');
let stale = 0;
for (const file of docFiles()) {
  const path = join(ROOT, file);
  const md = readFileSync(path, 'utf8');
  const blocks = generatedBlocks(md, file);
  if (blocks.length === 0) continue;
  const bodies = await freshBodies(md, file);
  blocks.forEach((b, i) => {
    const what =
      b.kind === 'output' ? `fleetlimit ${b.args.join(' ')}` : `${b.file} lines ${b.from}-${b.to ?? ''}`;
    const same = b.body === bodies[i];
    if (!same) stale++;
    process.stdout.write(
      `${file}:${b.line} ${same ? 'up to date' : check ? 'DIFFERS' : 'rewritten'}: ${what}\n`,
    );
  });
  const next = withBodies(md, bodies);
  if (!check && next !== md) writeFileSync(path, next);
}
if (check && stale > 0) {
  process.stdout.write(`${stale} block(s) differ: run npm run docs:examples\n`);
  process.exitCode = 1;
}
