/**
 * The explorer page end to end in headless Chromium: it loads cleanly, moving a control redraws the
 * chart, the numbers it shows are `fleetlimit sim --json`'s, and it is saved as screenshots at laptop
 * and phone widths under test-artifacts/.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { runSeeds } from '../../src/sim/run.js';
import type { RunParams } from '../../src/sim/types.js';
import { buildExplorer } from '../../src/web/bundle.js';
import { type ExplorerServer, startExplorerServer } from '../../src/web/server.js';
import { launchChromium } from './browser.js';

const ARTIFACTS = 'test-artifacts';
// small runs: two designs, three simulated minutes
const SETTING =
  'gateways=8&syncS=1&limit=100&windowS=60&honestKind=steady&honestLoad=0.8&routing=uneven&attack=10&designs=shared-counter,leases-ask&runOf=attack&minutes=3&seed=3';

let server: ExplorerServer;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const root = `${ARTIFACTS}/explorer-page`;
  await buildExplorer(root);
  server = await startExplorerServer({ root, port: 0, host: '127.0.0.1' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Opens the page and collects every console error and uncaught exception. */
async function open(viewport: { width: number; height: number }, hash = SETTING) {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
  await page.goto(`${server.url}#${hash}`);
  await settled(page);
  return { page, errors };
}

async function settled(page: Page): Promise<void> {
  await page.waitForSelector('#status[data-state=done]', { timeout: 45_000 });
}

async function timelinePaths(page: Page): Promise<string> {
  return page.$$eval('#timeline-chart svg path', (ps) => ps.map((p) => p.getAttribute('d')).join('|'));
}

/** Runs a line of the page's command box through the real CLI and returns its JSON. */
async function cli(line: string): Promise<Record<string, number>> {
  const args = line.trim().split(/\s+/);
  expect(args.slice(0, 3)).toEqual(['npx', 'fleetlimit', 'sim']);
  let out = '';
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => {
    out += chunk;
    return true;
  }) as typeof process.stdout.write;
  try {
    await buildProgram()
      .exitOverride()
      .parseAsync(['node', ...args.slice(1)]);
  } finally {
    process.stdout.write = write;
  }
  return JSON.parse(out);
}

/** Every number in the page's table equals runSeeds and the CLI line the page prints for that row. */
async function expectCliNumbers(page: Page): Promise<void> {
  const rows = await page.$$eval('#metrics tbody tr', (trs) =>
    trs.map((tr) => ({
      params: (tr as HTMLElement).dataset.params ?? '',
      values: Object.fromEntries(
        [...tr.querySelectorAll('td')].map((td) => [td.dataset.metric ?? '', td.dataset.value ?? '']),
      ),
    })),
  );
  const commands = (await page.locator('#commands').textContent())!.trim().split('\n');
  expect(commands).toHaveLength(rows.length);
  for (const [i, row] of rows.entries()) {
    const params = JSON.parse(row.params) as RunParams;
    const json = await cli(commands[i]);
    const { seed, ...setting } = params;
    // the printed command carries every parameter of the page's run
    expect(json).toMatchObject({ ...setting, seeds: [seed] });
    const direct = runSeeds(setting, [seed]).mean;
    expect(Object.keys(row.values)).toHaveLength(7);
    for (const [metric, shown] of Object.entries(row.values)) {
      expect(Number(shown), `${params.design} ${metric}`).toBe(json[metric]);
      expect(Number(shown), `${params.design} ${metric}`).toBe(direct[metric as keyof typeof direct]);
    }
  }
}

describe('the explorer page in Chromium', () => {
  it('loads with no console errors, draws its three charts, and is saved at laptop and phone widths', async () => {
    for (const [name, viewport] of [
      ['laptop', { width: 1280, height: 800 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      const { page, errors } = await open(viewport);
      for (const id of ['timeline-chart', 'over-chart', 'reject-chart']) {
        expect(await page.locator(`#${id} svg`).count(), id).toBeGreaterThan(0);
      }
      // axes carry their units
      const text = await page.locator('.results').textContent();
      expect(text).toMatch(/simulated time \(min\)/);
      expect(text).toMatch(/sync interval Δ \(s\)/);
      expect(text).toMatch(/admitted per window \(× L, log\)/);
      expect(text).toMatch(/honest requests rejected \(%, symlog\)/);
      // nothing is wider than the screen but the table, which scrolls in its own box
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `${ARTIFACTS}/explorer-${name}.png`, fullPage: true });
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it('shows the numbers fleetlimit sim --json gives, and moving a control redraws the chart', async () => {
    const { page, errors } = await open({ width: 1280, height: 800 });
    await expectCliNumbers(page);

    // the keyboard moves the slider as a person would: K from 8 to 10
    const before = await timelinePaths(page);
    expect(await page.locator('#run-caption').textContent()).toContain('K = 8');
    await page.locator('#gateways').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.locator('#run-caption').textContent()).toContain('K = 10');
    await settled(page);
    expect(await page.locator('#gateways-out').textContent()).toBe('10');
    expect(await timelinePaths(page)).not.toEqual(before);
    expect(page.url()).toContain('gateways=10');

    // the run over time switches to the honest client, and a design is added: a third line and row
    const k10 = await timelinePaths(page);
    await page.locator('#run-of').selectOption('honest');
    await page.locator('input[name=design][value=central-log]').check();
    await expect.poll(() => page.locator('#metrics tbody tr').count()).toBe(3);
    await expect.poll(() => page.locator('#run-caption').textContent()).toContain('honest steady client');
    await settled(page);
    expect(await timelinePaths(page)).not.toEqual(k10);
    await expectCliNumbers(page);
    expect(errors).toEqual([]);
    await page.close();
  });
});
