// dist/ as built from the current src/: rebuilt when any source file is newer than `file` (a stale
// dist/ would test old code). For the live tests that run the package as users get it.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';

export function ensureFreshBuild(root: string, file: string): void {
  const built = join(root, file);
  if (existsSync(built) && statSync(built).mtimeMs >= newestMtime(join(root, 'src'))) return;
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  // tsc leaves an output it would write unchanged as it was: mark the build as this one
  const now = new Date();
  utimesSync(built, now, now);
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) newest = Math.max(newest, statSync(join(e.parentPath, e.name)).mtimeMs);
  }
  return newest;
}
