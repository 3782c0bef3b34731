/**
 * The generated blocks of README.md and docs/*.md, found by their markers (pure: text in, text out).
 *
 *   <!-- output: fleetlimit advise --gateways 8 … -->   the next fenced block is what that command prints
 *   <!-- include: bench/results/latest.md lines 3- -->   the lines up to `<!-- /include -->` are those lines
 *                                                        of that file (a results file a timed run wrote)
 *
 * `npm run docs:examples` (scripts/docs-examples.mjs) rewrites both kinds in place; test/docs/ fails
 * when one differs from what the command prints or the file holds now.
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

/** The Markdown files whose examples are checked, relative to the repository: docs/ and its folders. */
export function docFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f.replaceAll('\\', '/')}`)
    .sort();
  return ['README.md', ...docs, 'bench/README.md'];
}

export interface OutputBlock {
  kind: 'output';
  /** the command after `fleetlimit`, split on spaces */
  args: string[];
  /** 1-based line of the marker */
  line: number;
  /** the lines between the block's fences */
  body: string;
  /** line indexes (0-based) of the opening and closing fence */
  open: number;
  close: number;
}

export interface IncludeBlock {
  kind: 'include';
  file: string;
  /** 1-based, inclusive; `to` undefined = to the end of the file */
  from: number;
  to: number | undefined;
  line: number;
  body: string;
  /** line indexes (0-based) of the marker and of `<!-- /include -->` */
  open: number;
  close: number;
}

export type GeneratedBlock = OutputBlock | IncludeBlock;

const OUTPUT = /^<!-- output: fleetlimit (.+?) -->$/;
const INCLUDE = /^<!-- include: (\S+) lines (\d+)-(\d*) -->$/;
const INCLUDE_END = '<!-- /include -->';

/** Every marked block of one Markdown text, in order; a marker with no block after it throws. */
export function generatedBlocks(md: string, file = 'text'): GeneratedBlock[] {
  const lines = md.split('\n');
  const blocks: GeneratedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const out = OUTPUT.exec(lines[i]);
    if (out !== null) {
      const open = i + 1;
      if (lines[open] !== '```')
        throw new Error(`${file}:${i + 1}: an output marker must be followed by a bare \`\`\` fence`);
      const close = lines.indexOf('```', open + 1);
      if (close < 0) throw new Error(`${file}:${i + 1}: the output block is not closed`);
      blocks.push({
        kind: 'output',
        args: out[1].split(' ').filter((a) => a !== ''),
        line: i + 1,
        body: lines.slice(open + 1, close).join('\n'),
        open,
        close,
      });
      i = close;
      continue;
    }
    const inc = INCLUDE.exec(lines[i]);
    if (inc !== null) {
      const close = lines.indexOf(INCLUDE_END, i + 1);
      if (close < 0) throw new Error(`${file}:${i + 1}: no ${INCLUDE_END} after the include marker`);
      blocks.push({
        kind: 'include',
        file: inc[1],
        from: Number(inc[2]),
        to: inc[3] === '' ? undefined : Number(inc[3]),
        line: i + 1,
        body: lines.slice(i + 1, close).join('\n'),
        open: i,
        close,
      });
      i = close;
    }
  }
  return blocks;
}

/** The lines an include marker names, from the file's text (a trailing newline does not make a line). */
export function includedLines(block: IncludeBlock, text: string): string {
  const lines = text.replace(/\n$/, '').split('\n');
  return lines.slice(block.from - 1, block.to).join('\n');
}

/** A command's output as a block body: trailing spaces and the final newline dropped. */
export function asBody(stdout: string): string {
  return stdout
    .replace(/\n+$/, '')
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
}

/** The text with each block's body replaced by `bodies[i]` (one per block of generatedBlocks(md)). */
export function withBodies(md: string, bodies: string[]): string {
  const lines = md.split('\n');
  const blocks = generatedBlocks(md);
  if (blocks.length !== bodies.length) throw new Error(`${blocks.length} blocks, ${bodies.length} bodies`);
  // from the last block up, so the earlier blocks' line indexes stay valid
  for (let b = blocks.length - 1; b >= 0; b--) {
    const { open, close } = blocks[b];
    lines.splice(open + 1, close - open - 1, ...(bodies[b] === '' ? [] : bodies[b].split('\n')));
  }
  return lines.join('\n');
}

export interface CodeBlock {
  lang: 'ts' | 'js' | 'json' | 'sh';
  /** 1-based line of the opening fence */
  line: number;
  code: string;
  /** the reason given by `<!-- example: fragment, REASON -->` right above it, if any */
  fragment: string | undefined;
}

const FRAGMENT = /^<!-- example: fragment, (.+) -->$/;

/** Every ```ts, ```js, ```json and ```sh block of one Markdown text. */
export function codeBlocks(md: string): CodeBlock[] {
  const lines = md.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^```(\w*)$/.exec(lines[i]);
    if (m === null) continue;
    const close = lines.indexOf('```', i + 1);
    if (close < 0) break;
    const lang = m[1];
    if (lang === 'ts' || lang === 'js' || lang === 'json' || lang === 'sh') {
      let above = i - 1;
      while (above >= 0 && lines[above] === '') above--;
      const frag = above >= 0 ? FRAGMENT.exec(lines[above]) : null;
      blocks.push({ lang, line: i + 1, code: lines.slice(i + 1, close).join('\n'), fragment: frag?.[1] });
    }
    i = close;
  }
  return blocks;
}
