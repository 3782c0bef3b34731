import { ConfigError, ConfigErrors } from '../config.js';

/**
 * Writes a bad configuration's errors to stderr, every one on its own line so that one run shows all
 * there is to fix (with a head line naming `file` when there are several and a file is given), and
 * sets exit code 2. Anything but a ConfigError is thrown on.
 */
export function reportConfigError(err: unknown, file?: string): void {
  if (!(err instanceof ConfigError)) throw err;
  const errors = err instanceof ConfigErrors ? err.errors : [err];
  const head =
    file !== undefined && errors.length > 1 ? `fleetlimit: ${file}: ${errors.length} errors\n` : '';
  process.stderr.write(head + errors.map((e) => `fleetlimit: ${e.message}\n`).join(''));
  process.exitCode = 2;
}
