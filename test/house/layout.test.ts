/**
 * The house rules a newcomer breaks without seeing it (issue 34): no file in src/ over 450 lines, no
 * function over 120 lines but the simulator's hot loop, and the layering docs/architecture.md draws
 * ("nothing below calls up") between src/'s top-level parts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', '..', 'src');
const MAX_FILE_LINES = 450;
const MAX_FUNCTION_LINES = 120;
/** Functions allowed past MAX_FUNCTION_LINES, each with a comment in the source saying why. */
const LONG_ON_PURPOSE = new Set(['sim/engine/simulate.ts:simulate']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(SRC, join(e.parentPath, e.name)));
}

/** The src/ part a file belongs to: its top-level folder, or the file itself at the top. */
function partOf(file: string): string {
  const [first, ...rest] = file.split('/');
  return rest.length === 0 ? first.replace(/\.ts$/, '') : first;
}

/**
 * The relative imports and re-exports of a file, as src/-relative paths; `calls`: only those that
 * load code (an `import type` is erased: a type shared upward is not a call up).
 */
function importsOf(file: string, text: string, calls = false): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(import|export)(\s+type)?[^'";]*?from\s+'(\.[^']+)'/g)) {
    if (calls && m[2] !== undefined) continue;
    out.push(normalize(join(dirname(file), m[3])).replace(/\.js$/, '.ts'));
  }
  return out;
}

/** Functions, methods and closures over `max` lines, as `file:name (lines)`. */
function longFunctions(file: string, text: string, max: number): { id: string; lines: number }[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: { id: string; lines: number }[] = [];
  const visit = (n: ts.Node): void => {
    const fn =
      ts.isFunctionDeclaration(n) ||
      ts.isMethodDeclaration(n) ||
      ts.isConstructorDeclaration(n) ||
      ts.isArrowFunction(n) ||
      ts.isFunctionExpression(n);
    if (fn && n.body !== undefined) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(n.end).line;
      const name = 'name' in n && n.name !== undefined ? n.name.getText(sf) : '(anonymous)';
      if (last - first + 1 > max) out.push({ id: `${file}:${name}`, lines: last - first + 1 });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/**
 * What each low part may import (besides itself): the bottom of docs/architecture.md's drawing. The
 * designs and windows do no I/O and read no clock, so they sit under everything that drives them.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  util: [],
  chart: ['util'],
  window: ['config'],
  designs: ['config', 'store', 'window'],
  store: ['config', 'util', 'window'],
  gateway: ['config', 'designs', 'store', 'util', 'window'],
};

const FILES = sources(SRC);
const TEXT = new Map(FILES.map((f) => [f, readFileSync(join(SRC, f), 'utf8')]));

describe('the house: sizes and layers of src/', () => {
  it(`no file in src/ over ${MAX_FILE_LINES} lines`, () => {
    const over = FILES.filter((f) => (TEXT.get(f) as string).split('\n').length - 1 > MAX_FILE_LINES);
    expect(over).toEqual([]);
  });

  it(`no function over ${MAX_FUNCTION_LINES} lines but those on purpose, each saying why`, () => {
    const long = FILES.flatMap((f) => longFunctions(f, TEXT.get(f) as string, MAX_FUNCTION_LINES));
    expect(long.filter((l) => !LONG_ON_PURPOSE.has(l.id))).toEqual([]);
    for (const id of LONG_ON_PURPOSE) {
      const [file, name] = id.split(':');
      expect(TEXT.get(file), `${id} is gone: take it off the list`).toBeDefined();
      expect(TEXT.get(file)).toMatch(new RegExp(`over ${MAX_FUNCTION_LINES} lines[^]*function ${name}\\(`));
    }
  });

  it('the low parts import only what is under them', () => {
    const wrong: string[] = [];
    for (const f of FILES) {
      const from = partOf(f);
      const allowed = MAY_IMPORT[from];
      if (allowed === undefined) continue;
      for (const t of importsOf(f, TEXT.get(f) as string)) {
        const to = partOf(t);
        if (to !== from && !allowed.includes(to)) wrong.push(`${f} imports ${t}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("no two parts call each other, directly or around a loop (src/'s parts form layers)", () => {
    const edges = new Map<string, Set<string>>();
    for (const f of FILES) {
      for (const t of importsOf(f, TEXT.get(f) as string, true)) {
        const a = partOf(f);
        const b = partOf(t);
        if (a === b) continue;
        if (!edges.has(a)) edges.set(a, new Set());
        (edges.get(a) as Set<string>).add(b);
      }
    }
    const loops: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const walk = (n: string, path: string[]): void => {
      if (state.get(n) === 'done') return;
      if (state.get(n) === 'open') {
        loops.push([...path.slice(path.indexOf(n)), n].join(' → '));
        return;
      }
      state.set(n, 'open');
      for (const m of edges.get(n) ?? []) walk(m, [...path, n]);
      state.set(n, 'done');
    };
    for (const n of edges.keys()) walk(n, []);
    expect(loops).toEqual([]);
  });
});
