/** The project's compiler options (tsconfig.json, strict), for the docs tests that type-check with tsc in-process. */
import { join } from 'node:path';
import ts from 'typescript';
import { ROOT } from './doc-blocks.js';

/** tsconfig.json's options with noEmit: a bad config throws with tsc's message. */
export function projectCompilerOptions(): ts.CompilerOptions {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error('tsconfig.json did not parse');
  return { ...config.options, noEmit: true };
}
