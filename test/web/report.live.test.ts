/**
 * The study's report.html in headless Chromium, opened from disk with no server and no network: every
 * chart placeholder gets an Observable Plot figure from the explorer's chart code, with no console errors,
 * and the pages are saved as screenshots under test-artifacts/.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeStudyOutputs } from '../../src/report/write.js';
import { buildGrid, filterGrid, parseOnly } from '../../src/sim/grid.js';
import { runStudy } from '../../src/sim/study.js';
import { SMALL_EXTENDED_GRID, syntheticResults } from '../report/synthetic.js';
import { launchChromium } from './browser.js';

const ARTIFACTS = 'test-artifacts';
// Plot's own SVG carries a class "plot-<hash>"; its legend's swatches are SVGs without one
const PLOT_SVG = 'svg[class^="plot-"]';

let browser: Browser;
let studyHtml: string;
let extendedHtml: string;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  // a real study, narrowed to a few seconds of simulation: two designs' floods at K = 8, Δ = 1 s
  const runs = filterGrid(
    buildGrid('quick'),
    parseOnly('designs=shared-counter,leases-ask,gateways=8,sync=1,group=flood'),
  );
  const results = await runStudy(runs, { grid: 'quick (only flood, K = 8)', workers: 0, checks: false });
  const studyDir = `${ARTIFACTS}/report-study`;
  rmSync(studyDir, { recursive: true, force: true });
  studyHtml = writeStudyOutputs(studyDir, results);
  // every chart the report draws, the extended study's too, from synthetic rows
  const extendedDir = `${ARTIFACTS}/report-extended`;
  rmSync(extendedDir, { recursive: true, force: true });
  extendedHtml = writeStudyOutputs(extendedDir, syntheticResults(SMALL_EXTENDED_GRID));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** Opens a report from disk with the network off, collecting every console error and failed request. */
async function open(file: string, viewport: { width: number; height: number }) {
  const context = await browser.newContext({ viewport, offline: true });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
  await page.goto(pathToFileURL(resolve(file)).href);
  await page.waitForSelector('html[data-charts-drawn]', { timeout: 20_000 });
  return { page, errors, close: () => context.close() };
}

async function placeholders(page: Page): Promise<string[]> {
  return page.$$eval('[data-chart]', (els) => els.map((e) => (e as HTMLElement).dataset.chart ?? ''));
}

/** Each placeholder holds exactly one Plot SVG, and the page says it drew them all. */
async function expectEveryChartDrawn(page: Page): Promise<string[]> {
  const names = await placeholders(page);
  expect(names.length).toBeGreaterThan(0);
  expect(await page.locator(`[data-chart] ${PLOT_SVG}`).count()).toBe(names.length);
  for (const name of names)
    expect(await page.locator(`[data-chart="${name}"] ${PLOT_SVG}`).count(), name).toBe(1);
  expect(await page.evaluate(() => document.documentElement.dataset.chartsDrawn)).toBe(String(names.length));
  expect(await page.locator('.plot-error').count()).toBe(0);
  return names;
}

describe("the study's report.html in Chromium", () => {
  it('draws every chart of a real study with Plot, offline, and is saved at laptop and phone widths', async () => {
    for (const [name, viewport] of [
      ['laptop', { width: 1280, height: 800 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      const { page, errors, close } = await open(studyHtml, viewport);
      const names = await expectEveryChartDrawn(page);
      expect(names).toEqual([
        'flood-k8',
        'flood-worst',
        'flood-worst-mean',
        'flood-all',
        'shared-counter-variants',
        'formula-shared-counter',
      ]);
      // axes with units and the log scale named, a legend entry per design, the limit drawn
      const flood = page.locator('[data-chart="flood-k8"]');
      const text = await flood.textContent();
      expect(text).toContain('flood rate (× L per window) — log scale');
      expect(text).toContain('admitted per window (× L) — log scale');
      expect(text).toContain('the limit L');
      for (const d of ['shared-counter', 'leases-ask']) expect(text).toContain(d);
      expect(await page.locator('[data-chart="flood-all"]').textContent()).toContain(
        'flood arrivals in one Δ (× L) = load × Δ / W — log scale',
      );
      // the charts fit the screen; only tables scroll, in their own boxes
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `${ARTIFACTS}/report-${name}.png`, fullPage: true });
      expect(errors).toEqual([]);
      await close();
    }
  });

  it('the verdict and checks tables fit a 1,400 px screen without scrolling sideways (issue 36)', async () => {
    // a real quick study's verdict table was 2,801 px wide in a 958 px page: its cells are sentences
    const { page, errors, close } = await open(extendedHtml, { width: 1400, height: 900 });
    const wide = await page.evaluate(() =>
      ['verdict', 'checks'].map((id) => {
        const wrap = document.querySelector(`section#${id} .table-wrap`) as HTMLElement | null;
        return { id, found: wrap !== null, over: wrap === null ? 0 : wrap.scrollWidth - wrap.clientWidth };
      }),
    );
    expect(wide).toEqual([
      { id: 'verdict', found: true, over: 0 },
      { id: 'checks', found: true, over: 0 },
    ]);
    expect(errors).toEqual([]);
    await close();
  });

  it("draws every chart of the extended study's sections, and redraws them for a narrower page", async () => {
    const { page, errors, close } = await open(extendedHtml, { width: 1280, height: 800 });
    const names = await expectEveryChartDrawn(page);
    for (const n of [
      'flood-k8',
      'flood-all',
      'shared-counter-variants',
      'honest-by-k',
      'honest-by-delta',
      'store-delay-flood',
      'store-delay-honest',
      'store-delay-latency',
      'sync-loss-flood',
      'sync-loss-honest',
      'attack-pick',
      'formula-shared-counter',
    ])
      expect(names).toContain(n);
    // a point a log axis cannot place is named under the chart, as in the static SVG
    expect(await page.locator('[data-chart="store-delay-latency"] figcaption').textContent()).toMatch(
      /points? at zero not shown: a log scale cannot place them/,
    );
    await page
      .locator('[data-chart="attack-pick"]')
      .screenshot({ path: `${ARTIFACTS}/report-attack-pick.png` });

    const width = () => page.locator(`[data-chart="flood-k8"] ${PLOT_SVG}`).getAttribute('width');
    expect(Number(await width())).toBeGreaterThan(600);
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(async () => Number(await width())).toBeLessThan(390);
    await expectEveryChartDrawn(page);
    expect(errors).toEqual([]);
    await close();
  });
});
