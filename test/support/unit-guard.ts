/**
 * Setup file of the unit project (vitest.config.ts): a unit test starts no redis-server and no child
 * process, so a test filed there by mistake fails at once, saying where it belongs, instead of
 * running beside the other unit files and timing out under their load. Child processes are the
 * private redis-server, the cluster's redis-cli, the fleet runner's gateways, npm and the browser;
 * startRedisServer is refused too because with REDIS_URL set it starts nothing and connects.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { vi } from 'vitest';

const MOVE_IT =
  'this is a unit test: move it to the live project (name it *.live.test.ts or add it to LIVE in vitest.config.ts)';

function refuse(what: string): never {
  throw new Error(`${what}: ${MOVE_IT}`);
}

const CHILD_PROCESS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
for (const name of CHILD_PROCESS) {
  (childProcess as unknown as Record<string, unknown>)[name] = () => refuse(`child_process.${name}`);
}
// the named exports (`import { spawn } from 'node:child_process'`) follow the module object
syncBuiltinESMExports();

vi.mock('./redis-server.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('./redis-server.js')>()),
  startRedisServer: () => refuse('startRedisServer'),
}));
