import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: this file is src/web/bundle.ts, or dist/web/bundle.js once built. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLIENT = join(ROOT, 'src', 'web', 'client');
const STATIC = join(ROOT, 'src', 'web', 'static');

/** The files the explorer page is made of; the server serves these and nothing else. */
export const PAGE_FILES = ['index.html', 'style.css', 'app.js', 'worker.js'] as const;

/**
 * Bundles the page and its simulation worker for the browser with esbuild, and copies the static files.
 * The worker carries the library's own engine and designs: they never touch Node, and a `node:` import
 * reaching the bundle fails the build.
 */
export async function buildExplorer(outDir: string): Promise<void> {
  // esbuild is a build-time tool: load it only when a bundle is made
  const esbuild = await import('esbuild');
  mkdirSync(outDir, { recursive: true });
  const result = await esbuild.build({
    entryPoints: { app: join(CLIENT, 'app.ts'), worker: join(CLIENT, 'worker.ts') },
    outdir: outDir,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2022'],
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
  });
  // platform 'browser' already refuses Node's built-in modules; nothing may be left for a runtime to load
  for (const [file, out] of Object.entries(result.metafile.outputs)) {
    const external = out.imports.filter((i) => i.external).map((i) => i.path);
    if (external.length > 0) throw new Error(`explorer bundle ${file} imports ${external.join(', ')}`);
  }
  for (const f of ['index.html', 'style.css']) copyFileSync(join(STATIC, f), join(outDir, f));
}

/** Where `npm run build` puts the page: dist/web/public. */
export function builtPageDir(): string {
  return join(ROOT, 'dist', 'web', 'public');
}
