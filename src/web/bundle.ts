import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: this file is src/web/bundle.ts, or dist/web/bundle.js once built. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLIENT = join(ROOT, 'src', 'web', 'client');
const STATIC = join(ROOT, 'src', 'web', 'static');

/** What both bundles are: one minified classic script for the browser, nothing left to load. */
const BROWSER_SCRIPT = {
  bundle: true,
  format: 'iife' as const,
  platform: 'browser' as const,
  target: ['es2022'],
  minify: true,
  legalComments: 'none' as const,
  logLevel: 'silent' as const,
  metafile: true as const,
};

/**
 * platform 'browser' already refuses Node's built-in modules; a bundle output that still imports
 * something (left for a runtime to load) fails the build.
 */
function refuseExternals(
  outputs: Record<string, { imports: { path: string; external?: boolean }[] }>,
  what: (file: string) => string,
): void {
  for (const [file, out] of Object.entries(outputs)) {
    const external = out.imports.filter((i) => i.external).map((i) => i.path);
    if (external.length > 0) throw new Error(`${what(file)} imports ${external.join(', ')}`);
  }
}

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
    ...BROWSER_SCRIPT,
  });
  refuseExternals(result.metafile.outputs, (file) => `explorer bundle ${file}`);
  for (const f of ['index.html', 'style.css']) copyFileSync(join(STATIC, f), join(outDir, f));
}

/** Where `npm run build` puts the page: dist/web/public. */
export function builtPageDir(): string {
  return join(ROOT, 'dist', 'web', 'public');
}

// The study report draws its charts with the explorer's chart code (client/charts.ts), bundled on its own
// and inlined into report.html: one classic script, no imports, so the page works opened from disk.
const REPORT_ENTRY = join(CLIENT, 'report.ts');

/** Where `npm run build` puts the report's chart script: dist/web/report-charts.js. */
export function builtReportChartsFile(): string {
  return join(ROOT, 'dist', 'web', 'report-charts.js');
}

/** Bundles client/report.ts (Plot, the chart code and its caller) into one minified script, in memory. */
export function bundleReportCharts(): string {
  // esbuild is a build-time tool, loaded only when a bundle is made; buildSync keeps report rendering synchronous
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const result = esbuild.buildSync({
    entryPoints: [REPORT_ENTRY],
    write: false,
    ...BROWSER_SCRIPT,
  });
  refuseExternals(result.metafile.outputs, () => 'report chart bundle');
  return result.outputFiles[0].text;
}

export function buildReportCharts(outFile: string): void {
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, bundleReportCharts());
}

let reportCharts: string | undefined;

/**
 * The report's chart script. Run from the sources (tests, tsx) it is bundled from them, so it is never
 * stale; run from dist/ (the installed CLI) it is the file `npm run build` wrote, as esbuild is a
 * development dependency.
 */
export function reportChartScript(): string {
  if (reportCharts !== undefined) return reportCharts;
  if (import.meta.url.endsWith('.ts')) reportCharts = bundleReportCharts();
  else {
    const file = builtReportChartsFile();
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` to make it`);
    reportCharts = readFileSync(file, 'utf8');
  }
  return reportCharts;
}
