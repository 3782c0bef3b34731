import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { buildExplorer, builtPageDir, PAGE_FILES } from '../web/bundle.js';
import { startExplorerServer } from '../web/server.js';
import { num, UsageError } from './parse.js';

/** The built page, or a fresh build of it when running from the sources (or before a build). */
async function pageDir(): Promise<string> {
  const built = builtPageDir();
  if (PAGE_FILES.every((f) => existsSync(join(built, f)))) return built;
  const dir = mkdtempSync(join(tmpdir(), 'fleetlimit-explorer-'));
  process.stderr.write('building the explorer page…\n');
  try {
    await buildExplorer(dir);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new Error(`the explorer page is not built and building it failed (${msg}); run npm run build`);
  }
  return dir;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function addServeCommand(program: Command): void {
  program
    .command('serve')
    .description('serve the explorer page: controls and charts, simulated in the browser')
    .option('--port <n>', 'TCP port (0: any free port)', '8080')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .action(async (f: { port: string; host: string }) => {
      const port = num('--port', f.port, { integer: true, min: 0, max: 65535 });
      if (f.host.trim() === '') throw new UsageError('--host', 'must not be empty');
      const s = await startExplorerServer({ root: await pageDir(), port, host: f.host });
      if (!isLoopback(f.host))
        process.stderr.write(
          `note: listening on ${f.host}, not only on this machine (loopback is 127.0.0.1)\n`,
        );
      process.stdout.write(`fleetlimit explorer: ${s.url}  (Ctrl-C stops it)\n`);
    });
}
