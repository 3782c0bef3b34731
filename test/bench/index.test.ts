// bench/README.md is the index of bench/: every script has a row, every row names a script that exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCH_PARTS } from '../../bench/parts.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BENCH = join(ROOT, 'bench');
// results/ is the bench's output, README.md the index itself, .gitignore keeps quick runs out of git
const NOT_SCRIPTS = new Set(['results', 'README.md', '.gitignore']);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (dir === BENCH && NOT_SCRIPTS.has(e.name)) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? filesUnder(path) : [relative(BENCH, path)];
  });
}

/** The link target of each table row's first cell, `| [`x`](TARGET) | ...`, relative to bench/. */
function indexedScripts(): string[] {
  const md = readFileSync(join(BENCH, 'README.md'), 'utf8');
  return [...md.matchAll(/^\| \[`[^`]+`\]\(([^)]+)\) \|/gm)].map((m) => m[1]);
}

/** Every bench/… or scripts/… script path (.ts, .mjs) a Markdown file names, relative to the repository. */
function namedPaths(file: string): string[] {
  const md = readFileSync(join(ROOT, file), 'utf8');
  return [...md.matchAll(/(?<![\w./-])(?:bench|scripts)\/[\w./-]+\.(?:ts|mjs)\b/g)].map((m) => m[0]);
}

/** README.md, bench/README.md and every Markdown file under docs/. */
function docFiles(): string[] {
  return [
    'README.md',
    'bench/README.md',
    ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).map((f) => `docs/${f}`),
  ].filter((f) => f.endsWith('.md'));
}

describe('bench/README.md, the index of bench/', () => {
  it('has a row for every file under bench/', () => {
    const listed = new Set(indexedScripts());
    expect(filesUnder(BENCH).filter((f) => !listed.has(f))).toEqual([]);
  });

  it('names only scripts that exist', () => {
    const rows = indexedScripts();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((f) => !existsSync(join(BENCH, f)))).toEqual([]);
  });

  it('and the README and docs name only bench/ and scripts/ paths that exist', () => {
    const named = docFiles().flatMap((f) => namedPaths(f).map((p) => `${f}: ${p}`));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((n) => !existsSync(join(ROOT, n.slice(n.indexOf(': ') + 2))))).toEqual([]);
  });

  it('and every `npm run bench -- --only PART` they give is a part run.ts runs alone', () => {
    const named = docFiles().flatMap((f) =>
      [...readFileSync(join(ROOT, f), 'utf8').matchAll(/npm run bench -- (?:--\S+ )*--only ([a-z]+)\b/g)].map(
        (m) => `${f}: ${m[1]}`,
      ),
    );
    expect(named.length).toBeGreaterThan(5);
    const parts: readonly string[] = BENCH_PARTS;
    expect(named.filter((n) => !parts.includes(n.slice(n.indexOf(': ') + 2)))).toEqual([]);
  });
});
