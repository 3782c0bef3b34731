// The code examples of README.md and docs/ type-check against src/ (tsc, strict, as the project), as a
// user's copy would against the package: the check half of test/docs/code-examples.live.test.ts, which
// runs them. In-process, with no server, child or clock, so it runs in the commands project beside the
// unit tests and not in the live queue, where its 5-8 s of compiling held up the timed files behind it.
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { exampleFile, runnable } from './code-example-blocks.js';
import { ROOT } from './doc-blocks.js';
import { projectCompilerOptions } from './project-options.js';

/** The package's public entry points, as a user imports them, → the sources they are built from. */
const ENTRY: Record<string, string> = {
  fleetlimit: 'src/index.js',
  'fleetlimit/http': 'src/http/index.js',
  'fleetlimit/redis': 'src/store/redis/index.js',
  'fleetlimit/sim': 'src/sim/index.js',
};

function pointAtSources(code: string, file: string): string {
  return code.replace(/from '(fleetlimit(?:\/\w+)?)'/g, (_whole, name: string) => {
    const target = ENTRY[name];
    if (target === undefined)
      throw new Error(`an example imports ${name}, which the package does not export`);
    return `from '${relative(dirname(file), join(ROOT, target)).replaceAll('\\', '/')}'`;
  });
}

describe('the code examples of README.md and docs/', () => {
  it('type-check against src/ (strict, as the project)', () => {
    const files = runnable.map((e) => {
      const file = exampleFile(e);
      return { e, file, text: pointAtSources(e.block.code, file) };
    });
    const options = projectCompilerOptions();
    const host = ts.createCompilerHost(options);
    const virtual = new Map(files.map((f) => [f.file, f.text]));
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (name, lang, onError) => {
      const text = virtual.get(name);
      return text === undefined ? getSourceFile(name, lang, onError) : ts.createSourceFile(name, text, lang);
    };
    const fileExists = host.fileExists.bind(host);
    host.fileExists = (name) => virtual.has(name) || fileExists(name);
    const readFile = host.readFile.bind(host);
    host.readFile = (name) => virtual.get(name) ?? readFile(name);
    const program = ts.createProgram([...virtual.keys()], options, host);
    // the examples' own diagnostics, as getPreEmitDiagnostics gives them for these files, without
    // checking the rest of src/ (the typecheck does that): 5-6 s here, against 14-18 s for the program
    const diagnostics = [...virtual.keys()].flatMap((name) => {
      const sf = program.getSourceFile(name);
      if (sf === undefined) throw new Error(`${name}: not in the program`);
      return [
        ...program.getSyntacticDiagnostics(sf),
        ...program.getSemanticDiagnostics(sf),
        ...(options.declaration === true ? program.getDeclarationDiagnostics(sf) : []),
      ];
    });
    const errors = diagnostics
      .filter((d) => d.file !== undefined && virtual.has(d.file.fileName))
      .map((d) => {
        const f = files.find((x) => x.file === d.file!.fileName)!;
        const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
        // the block's first line of code is the line after its fence
        return `${f.e.doc}:${f.e.block.line + 1 + line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    expect(errors, 'an example does not type-check: fix the example, it is what users copy').toEqual([]);
  }, 120_000);
});
