import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exited, stopByPid } from './children.js';

/**
 * A private redis-server: loopback only, its own port and temp dir, no persistence. The fleet runner,
 * the soak, the benchmarks and the tests all start theirs here. Every signal goes to its PID only;
 * a server still running when this process exits (a crash, an abort) is killed by PID too.
 */
export interface RedisServer {
  readonly host: string;
  readonly port: number;
  readonly url: string;
  /** The process id, or null when the server is not ours (externalRedis). */
  readonly pid: number | null;
  /** The running process (a new one after restart()), or null when not ours. */
  readonly process: ChildProcess | null;
  /** SIGTERM (SIGKILL after a grace), waiting for the exit; removes its dir. */
  stop(): Promise<void>;
  /** SIGKILL, waiting for the exit. */
  kill9(): Promise<void>;
  /** SIGSTOP: the server hangs with its port open. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** A new process on the same port (empty: nothing is persisted); waits until it answers PING. */
  restart(): Promise<void>;
}

export interface RedisServerOptions {
  /** Extra redis-server arguments, e.g. ['--cluster-enabled', 'yes']. */
  args?: string[];
  /** A fixed port (no retry on another if it is taken). */
  port?: number;
}

const HOST = '127.0.0.1';

export const REDIS_NOT_FOUND =
  'redis-server was not found on PATH: install it (Debian/Ubuntu: apt-get install redis-server), or give a URL (fleet --redis URL; tests: REDIS_URL)';

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

/** Servers still running: killed by PID if this process exits without stopping them. */
const live = new Set<ChildProcess>();
let exitHook = false;
function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const c of live) if (c.pid !== undefined && c.exitCode === null) c.kill('SIGKILL');
    });
  }
}

/** Starts redis-server as a child process and waits until it answers PING. */
function spawnServer(port: number, dir: string, args: string[]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--dir', dir, ...args],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    track(child);
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

export async function startRedisServer(opts: RedisServerOptions = {}): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'fleetlimit-redis-'));
  const args = opts.args ?? [];
  let port = opts.port ?? (await freePort());
  let child: ChildProcess | undefined;
  // the probed port can be taken before redis binds it: a few tries
  for (let attempt = 0; child === undefined; attempt++) {
    try {
      child = await spawnServer(port, dir, args);
    } catch (err) {
      if (attempt >= 2 || opts.port !== undefined || (err as Error).message === REDIS_NOT_FOUND) {
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
      port = await freePort();
    }
  }
  let proc: ChildProcess = child;
  const gone = () => proc.exitCode !== null || proc.signalCode !== null;
  const kill = async (sig: NodeJS.Signals) => {
    if (gone()) return;
    process.kill(proc.pid!, sig);
    await exited(proc);
  };
  return {
    host: HOST,
    port,
    url: `redis://${HOST}:${port}`,
    get pid() {
      return proc.pid ?? null;
    },
    get process() {
      return proc;
    },
    async stop() {
      if (!gone() && proc.pid !== undefined) {
        // a paused server would never act on SIGTERM
        process.kill(proc.pid, 'SIGCONT');
        await stopByPid(proc.pid, proc, 3000);
      }
      await exited(proc);
      rmSync(dir, { recursive: true, force: true });
    },
    kill9: () => kill('SIGKILL'),
    pause() {
      process.kill(proc.pid!, 'SIGSTOP');
    },
    resume() {
      process.kill(proc.pid!, 'SIGCONT');
    },
    async restart() {
      if (!gone()) {
        process.kill(proc.pid!, 'SIGCONT');
        await kill('SIGKILL');
      }
      proc = await spawnServer(port, dir, args);
    },
  };
}

/** A server someone else runs (a URL given): the same shape, with process controls that throw. */
export function externalRedis(url: string): RedisServer {
  const u = new URL(url);
  const fail = () => {
    throw new Error(`process control is not available for a Redis this process did not start (${url})`);
  };
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    url,
    pid: null,
    process: null,
    stop: async () => {},
    kill9: async () => fail(),
    pause: fail,
    resume: fail,
    restart: async () => fail(),
  };
}
