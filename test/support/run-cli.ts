// Runs one `fleetlimit …` command in this process (no child, no build: the CLI from src/) and returns
// what it printed on stdout and on stderr (errors, and the progress bar) and the exit code it set
// (undefined: none).
import { buildProgram } from '../../src/cli/program.js';

export async function runFleetlimit(
  args: string[],
): Promise<{ out: string; err: string; code: number | undefined }> {
  let out = '';
  let err = '';
  const write = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    out += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    err += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stderr.write;
  const prev = process.exitCode;
  process.exitCode = undefined;
  try {
    await buildProgram()
      .exitOverride()
      .parseAsync(['node', 'fleetlimit', ...args]);
  } finally {
    process.stdout.write = write;
    process.stderr.write = writeErr;
  }
  const code = process.exitCode as number | undefined;
  process.exitCode = prev;
  return { out, err, code };
}
