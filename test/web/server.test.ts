import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { simParams } from '../../src/cli/sim-command.js';
import { PAGE_FILES } from '../../src/web/bundle.js';
import {
  DEFAULT_STATE,
  decodeState,
  encodeState,
  runParams,
  simCommand,
  stateErrors,
} from '../../src/web/client/params.js';
import { type ExplorerServer, startExplorerServer } from '../../src/web/server.js';

let server: ExplorerServer;

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'fleetlimit-page-'));
  for (const f of PAGE_FILES) writeFileSync(join(root, f), `/* ${f} */`);
  writeFileSync(join(root, 'secret.txt'), 'not part of the page');
  server = await startExplorerServer({ root, port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await server?.close();
});

describe('the explorer server', () => {
  it('listens on loopback and serves the page files with their types', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const index = await fetch(server.url);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await index.text()).toBe('/* index.html */');
    const app = await fetch(`${server.url}app.js?v=1`);
    expect(app.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(app.headers.get('content-security-policy')).toContain("script-src 'self'");
    const head = await fetch(`${server.url}style.css`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('serves nothing else: other files, parent folders, other methods', async () => {
    for (const path of ['secret.txt', '../package.json', '%2e%2e/package.json', 'index.html/']) {
      expect((await fetch(`${server.url}${path}`)).status, path).toBe(404);
    }
    const post = await fetch(server.url, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('fleetlimit serve refuses a bad port or host, naming the flag', async () => {
    const serve = (args: string[]) =>
      buildProgram()
        .exitOverride()
        .parseAsync(['node', 'fleetlimit', 'serve', ...args]);
    await expect(serve(['--port', '70000'])).rejects.toThrow(/--port: must be at most 65535/);
    await expect(serve(['--port', 'http'])).rejects.toThrow(/--port: expected a number/);
    await expect(serve(['--host', ' '])).rejects.toThrow(/--host: must not be empty/);
  });
});

describe('the page parameters', () => {
  it('round-trip through the URL fragment', () => {
    const s = {
      ...DEFAULT_STATE,
      gateways: 3,
      syncS: 0.3,
      routing: 'uneven' as const,
      designs: ['split' as const],
    };
    expect(decodeState(`#${encodeState(s)}`)).toEqual(s);
    // unreadable values keep their defaults
    expect(decodeState('#gateways=lots&designs=split,nonsense&routing=diagonal')).toMatchObject({
      gateways: DEFAULT_STATE.gateways,
      designs: ['split'],
      routing: DEFAULT_STATE.routing,
    });
  });

  it('print the fleetlimit sim command that runs the same setting', () => {
    for (const runOf of ['attack', 'honest'] as const) {
      const p = runParams({ ...DEFAULT_STATE, runOf, honestKind: 'pageload', honestLoad: 0.35 }, 'leases');
      const argv = simCommand(p).split(' ').slice(3);
      const flags: Record<string, string | boolean> = {};
      for (let i = 0; i < argv.length; i++) {
        const name = argv[i].slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
        if (argv[i + 1] === undefined || argv[i + 1].startsWith('--')) flags[name] = true;
        else flags[name] = argv[++i];
      }
      const { params, seeds } = simParams({ windowKind: 'sliding', ...flags } as unknown as Parameters<
        typeof simParams
      >[0]);
      const { seed, ...setting } = p;
      expect(params).toEqual(setting);
      expect(seeds).toEqual([seed]);
    }
  });

  it('name the control that is out of range', () => {
    expect(stateErrors(DEFAULT_STATE)).toEqual({});
    expect(
      Object.keys(stateErrors({ ...DEFAULT_STATE, gateways: 65, windowS: 10, syncS: 20, designs: [] })),
    ).toEqual(['gateways', 'syncS', 'designs']);
    expect(stateErrors({ ...DEFAULT_STATE, windowS: 600, minutes: 5 })).toEqual({
      minutes: 'run at least one window W',
    });
  });
});
