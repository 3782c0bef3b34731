import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A private redis-server for tests: its own loopback port and temp dir, no persistence. Stopped by
 * its PID only. With REDIS_URL set, that server is used instead and the process controls throw.
 */
export interface RedisServer {
  readonly host: string;
  readonly port: number;
  readonly url: string;
  /** The process id, or null when REDIS_URL points elsewhere. */
  readonly pid: number | null;
  /** SIGTERM, waiting for the exit. */
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
  port?: number;
}

const HOST = '127.0.0.1';

/** A loopback port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, HOST, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves once the server at host:port answers PING with PONG; rejects after `timeoutMs`. */
export async function waitForPing(host: string, port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await pingOnce(host, port)) return;
    if (Date.now() > deadline)
      throw new Error(`redis at ${host}:${port} did not answer PING in ${timeoutMs} ms`);
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

/** Servers still running: killed if the test process exits without stopping them (a crash, an abort). */
const live = new Set<ChildProcess>();
let exitHook = false;
function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const c of live) if (c.pid !== undefined) c.kill('SIGKILL');
    });
  }
}

const INSTALL_HINT =
  'redis-server was not found on PATH. Install it (Debian/Ubuntu: apt-get install redis-server) or set REDIS_URL to a server the tests may use.';

/** Starts redis-server as a child process and waits until it answers PING. */
function spawnServer(port: number, dir: string, args: string[]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--dir', dir, ...args],
      { stdio: ['ignore', 'ignore', 'pipe'], detached: false },
    );
    track(child);
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += d.toString();
    });
    const onExit = (code: number | null) =>
      reject(new Error(`redis-server on port ${port} exited (code ${code}) before answering: ${stderr}`));
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' ? new Error(INSTALL_HINT) : err),
    );
    child.once('exit', onExit);
    waitForPing(HOST, port).then(
      () => {
        child.off('exit', onExit);
        resolve(child);
      },
      (err) => {
        if (child.pid !== undefined && child.exitCode === null) child.kill('SIGKILL');
        reject(err);
      },
    );
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startRedisServer(opts: RedisServerOptions = {}): Promise<RedisServer> {
  const external = process.env.REDIS_URL;
  if (external !== undefined && external !== '' && opts.args === undefined) return externalServer(external);
  const dir = mkdtempSync(join(tmpdir(), 'fleetlimit-redis-'));
  const args = opts.args ?? [];
  let port = opts.port ?? (await freePort());
  let child: ChildProcess | undefined;
  // the free port can be taken between the probe and the bind: try a few
  for (let attempt = 0; child === undefined; attempt++) {
    try {
      child = await spawnServer(port, dir, args);
    } catch (err) {
      if (attempt >= 2 || opts.port !== undefined || (err as Error).message === INSTALL_HINT) {
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
      port = await freePort();
    }
  }
  let proc: ChildProcess = child;
  const signal = async (sig: NodeJS.Signals) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
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
    async stop() {
      await signal('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
    kill9: () => signal('SIGKILL'),
    pause() {
      process.kill(proc.pid!, 'SIGSTOP');
    },
    resume() {
      process.kill(proc.pid!, 'SIGCONT');
    },
    async restart() {
      if (proc.signalCode === null && proc.exitCode === null) {
        process.kill(proc.pid!, 'SIGCONT');
        await signal('SIGKILL');
      }
      proc = await spawnServer(port, dir, args);
    },
  };
}

function externalServer(url: string): RedisServer {
  const u = new URL(url);
  const fail = () => {
    throw new Error('process control is not available when REDIS_URL points at an outside server');
  };
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    url,
    pid: null,
    stop: async () => {},
    kill9: async () => fail(),
    pause: fail,
    resume: fail,
    restart: async () => fail(),
  };
}
