// The package as a CommonJS user loads it (issue 20): `require('fleetlimit')` and its subpaths on a
// Node that loads ES modules from require() (20.19+, 22.12+). package.json's exports give each entry a
// `default` condition besides `import`; with `import` alone require() fails with
// ERR_PACKAGE_PATH_NOT_EXPORTED. A node child in a scratch project whose node_modules/fleetlimit is
// this repository, as an installed package is resolved.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../docs/doc-blocks.js';
import { ensureFreshBuild } from '../support/fresh-build.js';

const CONSUMER = `
const assert = require('node:assert');
const fl = require('fleetlimit');
const http = require('fleetlimit/http');
const redis = require('fleetlimit/redis');
const sim = require('fleetlimit/sim');
const gw = fl.createGateway({ id: 'gw-1', design: 'shared-counter', limit: 2, windowMs: 60000,
  gateways: 1, syncMs: 1000, store: new fl.MemoryStore() });
assert.deepStrictEqual([0, 1, 2].map(() => gw.admit('k', 0).allowed), [true, true, false]);
assert.strictEqual(typeof http.expressRateLimit, 'function');
assert.strictEqual(typeof http.fastifyRateLimit, 'function');
assert.strictEqual(typeof http.withRateLimit, 'function');
assert.strictEqual(typeof redis.RedisStore, 'function');
assert.strictEqual(typeof sim.runSimulation, 'function');
// one copy of the module: what require() gives is what import gives
import('fleetlimit').then((m) => {
  assert.strictEqual(m.createGateway, fl.createGateway);
  process.stdout.write('required: ' + Object.keys(fl).length + ' exports\\n');
});
`;

const canRequireEsm = (process.features as { require_module?: boolean }).require_module === true;

describe('require() of the package (CommonJS)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetlimit-require-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.skipIf(!canRequireEsm)(
    "require('fleetlimit'), 'fleetlimit/http', '/redis' and '/sim' work and are the ES modules",
    () => {
      ensureFreshBuild(ROOT, 'dist/index.js');
      mkdirSync(join(dir, 'node_modules'));
      symlinkSync(ROOT, join(dir, 'node_modules', 'fleetlimit'), 'dir');
      writeFileSync(join(dir, 'package.json'), '{ "name": "consumer", "private": true }\n');
      writeFileSync(join(dir, 'consumer.cjs'), CONSUMER);
      const r = spawnSync(process.execPath, ['consumer.cjs'], { cwd: dir, encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^required: \d+ exports$/m);
    },
    180_000,
  );
});
