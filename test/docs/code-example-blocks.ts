/**
 * The code examples of README.md and docs/, as test/docs/code-examples.live.test.ts runs them and
 * code-examples-types.commands.test.ts type-checks them: every fenced block, and the runnable ones
 * (```ts and ```js, not marked a fragment), each with its own file name under test-artifacts/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CodeBlock, codeBlocks, docFiles, ROOT } from './doc-blocks.js';

export const OUT = join(ROOT, 'test-artifacts', 'docs-examples');

export interface Example {
  doc: string;
  id: string;
  block: CodeBlock;
}

export const examples: Example[] = docFiles().flatMap((doc) =>
  codeBlocks(readFileSync(join(ROOT, doc), 'utf8')).map((block) => ({
    doc,
    id: `${doc}:${block.line}`,
    block,
  })),
);
export const runnable = examples.filter(
  (e) => (e.block.lang === 'ts' || e.block.lang === 'js') && !e.block.fragment,
);

export function exampleFile(e: Example): string {
  return join(OUT, `${e.id.replace(/[^\w]+/g, '-')}.${e.block.lang}`);
}
