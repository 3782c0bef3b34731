import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureFreshBuild } from '../support/fresh-build.js';

describe('the installed command', () => {
  it('the package bin fleetlimit --help runs, built from the current src', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { bin: Record<string, string> };
    const bin = pkg.bin.fleetlimit;
    expect(bin).toBe('dist/cli/main.js');
    ensureFreshBuild(process.cwd(), bin);
    // the file npm links as `fleetlimit`, executed as npm's link would be: by the kernel, so its
    // shebang and exec bit are what run it. (Through `npx fleetlimit` it took ~4-10 s, npm loading
    // the project's tree, and ran the same file.)
    const out = execFileSync(resolve(bin), ['--help'], { encoding: 'utf8' });
    expect(out).toMatch(/Usage: fleetlimit/);
    expect(out).toMatch(/study/);
  }, 120_000);
});
