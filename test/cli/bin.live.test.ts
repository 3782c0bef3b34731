import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ensureFreshBuild } from '../support/fresh-build.js';

describe('the installed command', () => {
  it('npx fleetlimit --help runs the package bin, built from the current src', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { bin: Record<string, string> };
    const bin = pkg.bin.fleetlimit;
    expect(bin).toBe('dist/cli/main.js');
    ensureFreshBuild(process.cwd(), bin);
    // through npm's own resolution of the project's bin (shebang, exec bit), never the registry
    const out = execFileSync('npx', ['--no-install', 'fleetlimit', '--help'], {
      encoding: 'utf8',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    expect(out).toMatch(/Usage: fleetlimit/);
    expect(out).toMatch(/study/);
  }, 120_000);
});
