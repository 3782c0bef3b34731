import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exited, stopByPid } from './children.js';

/**
 * A private redis-server for one run: loopback only, its own port and temp dir, no persistence, no
 * protected-mode surprises. Stopped by its PID (SIGTERM, then SIGKILL), its dir removed.
 */
export interface PrivateRedis {
  readonly url: string;
  readonly port: number;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';

export const REDIS_NOT_FOUND =
  'redis-server was not found on PATH: install it (Debian/Ubuntu: apt-get install redis-server) or pass --redis URL';

/** A loopback port that was free a moment ago (the caller retries if it is taken by the time it binds). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, HOST, () => {
      const a = srv.address();
      const port = typeof a === 'object' && a !== null ? a.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves once host:port answers PING with PONG; rejects after timeoutMs. */
export async function waitForPing(host: string, port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await pingOnce(host, port)) return;
    if (Date.now() > deadline)
      throw new Error(`redis at ${host}:${port} did not answer PING within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function pingOnce(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = new Socket();
    let buf = '';
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(500, () => done(false));
    s.on('error', () => done(false));
    s.on('data', (d) => {
      buf += d.toString();
      if (buf.includes('\r\n')) done(buf.startsWith('+PONG'));
    });
    s.connect(port, host, () => s.write('PING\r\n'));
  });
}

function spawnOnce(port: number, dir: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += d.toString();
    });
    const onExit = (code: number | null) =>
      reject(
        new Error(`redis-server on port ${port} exited (code ${code}) before answering: ${stderr.trim()}`),
      );
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' ? new Error(REDIS_NOT_FOUND) : err),
    );
    child.once('exit', onExit);
    waitForPing(HOST, port).then(
      () => {
        child.off('exit', onExit);
        resolve(child);
      },
      async (err) => {
        child.off('exit', onExit);
        if (child.pid !== undefined) await stopByPid(child.pid, child, 1000);
        reject(err);
      },
    );
  });
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'fleetlimit-fleet-redis-'));
  let child: ChildProcess | undefined;
  try {
    // the probed port can be taken before redis binds it: a few tries
    for (let attempt = 0; child === undefined; attempt++) {
      const port = await freePort();
      try {
        child = await spawnOnce(port, dir);
      } catch (err) {
        if (attempt >= 2 || (err as Error).message === REDIS_NOT_FOUND) throw err;
      }
    }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const proc = child;
  const port = Number(proc.spawnargs[proc.spawnargs.indexOf('--port') + 1] ?? '0');
  return {
    url: `redis://${HOST}:${port}`,
    port,
    process: proc,
    async stop() {
      if (proc.pid !== undefined) await stopByPid(proc.pid, proc, 3000);
      await exited(proc);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
