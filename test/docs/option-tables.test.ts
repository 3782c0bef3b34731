// The README's option tables list every option the types have, and nothing else (issue 20): the names
// are read from the TypeScript types themselves, so an option added to a type without a row here, or a
// row left behind by a removed option, fails. Each row has a default and a meaning.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ASYNC_GATEWAY_FIELDS } from '../../src/gateway/runtime/async-options.js';
import { ROOT } from './doc-blocks.js';
import { projectCompilerOptions } from './project-options.js';

/** Each documented table: where it is, and the types (file, exported name) whose properties it lists. */
const TABLES = [
  {
    doc: 'README.md',
    heading: '### Gateway options (`createAsyncGateway`)',
    types: [['src/gateway/runtime/async-options.ts', 'AsyncGatewayOptions']],
  },
  {
    doc: 'README.md',
    heading: '### Middleware options (`expressRateLimit`, `fastifyRateLimit`, `withRateLimit`)',
    types: [
      ['src/http/express.ts', 'ExpressRateLimitOptions'],
      ['src/http/fastify.ts', 'FastifyRateLimitOptions'],
      ['src/http/node.ts', 'NodeRateLimitOptions'],
    ],
  },
  {
    doc: 'README.md',
    heading: '### Sidecar options (`sidecar` section of the configuration file)',
    types: [
      ['src/sidecar/options.ts', 'SidecarFileOptions'],
      ['src/sidecar/options.ts', 'SidecarHttpFileOptions'],
      ['src/sidecar/options.ts', 'SidecarGrpcFileOptions'],
    ],
  },
  {
    doc: 'docs/production.md',
    heading: '### RedisStore options',
    types: [['src/store/redis/options.ts', 'RedisStoreOptions']],
  },
] as const;

function program(): ts.Program {
  const roots = TABLES.flatMap((t) => t.types.map(([file]) => join(ROOT, file)));
  return ts.createProgram(roots, projectCompilerOptions());
}

/** The property names of an exported interface or type alias (inherited and intersected ones too). */
function propertyNames(p: ts.Program, file: string, name: string): string[] {
  const source = p.getSourceFile(join(ROOT, file));
  if (source === undefined) throw new Error(`${file}: not in the program`);
  const decl = source.statements.find(
    (s): s is ts.InterfaceDeclaration | ts.TypeAliasDeclaration =>
      (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) && s.name.text === name,
  );
  if (decl === undefined) throw new Error(`${file}: no type ${name}`);
  const checker = p.getTypeChecker();
  return checker.getPropertiesOfType(checker.getTypeAtLocation(decl.name)).map((s) => s.name);
}

interface Row {
  name: string;
  cells: string[];
}

/** The rows of the first table after `heading`: `| \`name\` | default | meaning |`. */
function tableRows(md: string, heading: string): Row[] {
  const lines = md.split('\n');
  const at = lines.indexOf(heading);
  if (at < 0) throw new Error(`no heading ${heading}`);
  let i = at + 1;
  while (i < lines.length && !lines[i].startsWith('|')) i++;
  const rows: Row[] = [];
  for (i += 2; i < lines.length && lines[i].startsWith('|'); i++) {
    const cells = lines[i]
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    const name = /^`(\w+)`$/.exec(cells[0])?.[1];
    if (name === undefined)
      throw new Error(`${heading}: a row whose first cell is not \`option\`: ${lines[i]}`);
    rows.push({ name, cells });
  }
  return rows;
}

describe('the option tables list every option, with its default and meaning', () => {
  const p = program();
  for (const table of TABLES) {
    it(`${table.doc}, ${table.heading}`, () => {
      const fromTypes = new Set(table.types.flatMap(([file, name]) => propertyNames(p, file, name)));
      // the gateway's runtime list of known option names, which the config check refuses others by
      if (table.heading.includes('createAsyncGateway'))
        for (const f of ASYNC_GATEWAY_FIELDS) fromTypes.add(f);
      expect(fromTypes.size).toBeGreaterThan(5);
      const rows = tableRows(readFileSync(join(ROOT, table.doc), 'utf8'), table.heading);
      const documented = rows.map((r) => r.name);
      expect(
        [...fromTypes].filter((n) => !documented.includes(n)),
        `options without a row in ${table.doc} (add one: name, default, meaning)`,
      ).toEqual([]);
      expect(
        documented.filter((n) => !fromTypes.has(n)),
        `rows in ${table.doc} for options the types do not have`,
      ).toEqual([]);
      expect(documented.length, 'an option with two rows').toBe(new Set(documented).size);
      for (const r of rows) {
        expect(r.cells, `${r.name}: three cells (option, default, meaning)`).toHaveLength(3);
        expect(r.cells[1], `${r.name}: no default`).not.toBe('');
        expect(r.cells[2], `${r.name}: no meaning`).not.toBe('');
      }
    }, 60_000);
  }
});
