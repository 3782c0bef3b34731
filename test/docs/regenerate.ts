// What each generated block of a Markdown file should hold now: the command's output, or the lines of
// the results file it includes. Shared by scripts/docs-examples.mjs (which writes them) and the test.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runFleetlimit } from '../support/run-cli.js';
import { asBody, type GeneratedBlock, generatedBlocks, includedLines, ROOT } from './doc-blocks.js';

export async function freshBody(block: GeneratedBlock): Promise<string> {
  if (block.kind === 'include') return includedLines(block, readFileSync(join(ROOT, block.file), 'utf8'));
  const { out: stdout } = await runFleetlimit(block.args);
  return asBody(stdout);
}

export async function freshBodies(md: string, file: string): Promise<string[]> {
  const bodies: string[] = [];
  for (const block of generatedBlocks(md, file)) bodies.push(await freshBody(block));
  return bodies;
}
