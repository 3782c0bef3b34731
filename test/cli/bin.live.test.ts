import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('the installed command', () => {
  it('npx fleetlimit --help runs the package bin, built from the current src', () => {
    // the bin is what package.json names, built no earlier than the newest source file (a stale
    // dist/ would test old code): rebuilt otherwise
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { bin: Record<string, string> };
    const bin = pkg.bin.fleetlimit;
    expect(bin).toBe('dist/cli/main.js');
    if (!existsSync(bin) || statSync(bin).mtimeMs < newestMtime('src')) {
      execFileSync('npm', ['run', 'build'], { stdio: 'ignore' });
      // tsc leaves an output it would write unchanged as it was: mark the build as this one
      const now = new Date();
      utimesSync(bin, now, now);
    }
    // through npm's own resolution of the project's bin (shebang, exec bit), never the registry
    const out = execFileSync('npx', ['--no-install', 'fleetlimit', '--help'], {
      encoding: 'utf8',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    expect(out).toMatch(/Usage: fleetlimit/);
    expect(out).toMatch(/study/);
  }, 120_000);
});

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) newest = Math.max(newest, statSync(join(e.parentPath, e.name)).mtimeMs);
  }
  return newest;
}
