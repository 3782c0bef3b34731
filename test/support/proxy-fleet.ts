/**
 * A fleet of NGINX + fleetlimit sidecar pairs on loopback, sharing one Redis, in front of one upstream
 * that logs when each request reached it. NGINX is the Debian package's binary run as our own process
 * (its own prefix dir and ports, never the system service) with docs/examples/nginx.conf, only its
 * ports changed; each sidecar is `fleetlimit sidecar` (the CLI from src/) with docs/examples'
 * configuration, the numbers under test set over it. Every process is ended by PID.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stopByPid } from '../../src/fleet/children.js';
import { Random } from '../../src/sim/random.js';
import { freePort } from './redis-server.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const NGINX_CONF = join(ROOT, 'docs/examples/nginx.conf');
export const SIDECAR_NGINX_JSON = join(ROOT, 'docs/examples/sidecar-nginx.json');

export interface ProxyFleetOptions {
  redisUrl: string;
  /** Gateway options set over docs/examples/sidecar-nginx.json (design, limit, windowMs, gateways, syncMs, …). */
  gateway: Record<string, unknown>;
  /** NGINX + sidecar pairs. */
  pairs: number;
  /** Redis key prefix, one per run. */
  prefix: string;
  /** Named policies' options set over the file's sidecar.policies, by name (e.g. one's limit out of the way). */
  policies?: Record<string, Record<string, unknown>>;
  /**
   * Each NGINX writes its own access log (one file per gateway, as a fleet's edges do) in this
   * format: a `log_format` body (NGINX variables), or 'combined' for NGINX's built-in one.
   */
  accessLog?: string;
}

export interface ProxyFleet {
  /** Each NGINX's port, in pair order. */
  nginxPorts: number[];
  /** Each sidecar's http://host:port. */
  sidecarUrls: string[];
  sidecars: ChildProcess[];
  /** Local times (ms) at which requests reached the upstream, by path. */
  arrivals: Map<string, number[]>;
  /** Each sidecar's stderr so far. */
  stderr: string[];
  /** Each NGINX's access log file, in pair order (with `accessLog`; removed by stop()). */
  accessLogs: string[];
  stop(): Promise<void>;
}

/** Lines of docs/examples/nginx.conf with the ports of one pair (the file's own are 3000, 9090, 8080). */
export function nginxConfFor(upstream: number, sidecar: number, listen: number): string {
  const conf = readFileSync(NGINX_CONF, 'utf8');
  const out = conf
    .replace('server 127.0.0.1:3000;', `server 127.0.0.1:${upstream};`)
    .replace('server 127.0.0.1:9090;', `server 127.0.0.1:${sidecar};`)
    .replace('listen 127.0.0.1:8080;', `listen 127.0.0.1:${listen};`);
  if ([upstream, sidecar, listen].some((p) => !out.includes(`:${p};`)))
    throw new Error('docs/examples/nginx.conf changed: its ports 3000, 9090 and 8080 were not all found');
  return out;
}

/** The access_log lines for `format` ('combined' or a log_format body), written to dir/access.log. */
function accessLogConf(dir: string, format: string | undefined): string {
  if (format === undefined) return 'access_log off;';
  if (format === 'combined') return `access_log ${dir}/access.log combined;`;
  return `log_format fleetlimit_replay escape=json '${format.replaceAll("'", "\\'")}';\n  access_log ${dir}/access.log fleetlimit_replay;`;
}

/** The main configuration around it: our own process, our own files, one worker. */
function mainConf(dir: string, accessLog?: string): string {
  return `daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  ${accessLogConf(dir, accessLog)}
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${dir}/fleetlimit.conf;
}
`;
}

function waitForLine(
  child: ChildProcess,
  pattern: RegExp,
  what: string,
  timeoutMs: number,
): Promise<RegExpExecArray> {
  return new Promise((res, rej) => {
    let out = '';
    const timer = setTimeout(
      () => rej(new Error(`${what}: no line matching ${pattern} within ${timeoutMs} ms: ${out}`)),
      timeoutMs,
    );
    child.stdout?.on('data', (d) => {
      out += d.toString();
      const m = pattern.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        res(m);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`${what} exited (code ${code}) before it was ready: ${out}`));
    });
  });
}

async function waitForHttp(port: number, path: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}${path}`);
      await r.arrayBuffer();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`nothing answered on port ${port} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** `fleetlimit sidecar` from src/ on free ports; `store`: ['--redis', URL] or ['--redis-cluster', NODES]. */
export function startSidecarProcess(
  configFile: string,
  store: string[],
  extra: string[] = [],
): { child: ChildProcess; ready: Promise<{ http: string; grpc: string | null }>; stderr: () => string } {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'src/cli/main.ts'),
      'sidecar',
      configFile,
      ...store,
      '--http-port',
      '0',
      ...extra,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr?.on('data', (d) => {
    err += d.toString();
  });
  const ready = waitForLine(
    child,
    /fleetlimit sidecar: http (\S+?)(?:, grpc (\S+))? \(/,
    'fleetlimit sidecar',
    20_000,
  ).then((m) => ({ http: m[1], grpc: m[2] ?? null }));
  return { child, ready, stderr: () => err };
}

export async function startProxyFleet(o: ProxyFleetOptions): Promise<ProxyFleet> {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const arrivals = new Map<string, number[]>();
  const upstream: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    let log = arrivals.get(path);
    if (log === undefined) arrivals.set(path, (log = []));
    log.push(Date.now());
    res.end('ok\n');
  });
  upstream.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  const upstreamPort = (upstream.address() as { port: number }).port;
  const stderrOf: (() => string)[] = [];
  const stop = async () => {
    // sidecars first (SIGTERM: their last sync), then NGINX, then the upstream
    await Promise.all(children.map((c) => (c.pid === undefined ? undefined : stopByPid(c.pid, c, 5000))));
    upstream.closeAllConnections();
    await new Promise((r) => upstream.close(() => r(undefined)));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  };
  try {
    const base = JSON.parse(readFileSync(SIDECAR_NGINX_JSON, 'utf8')) as Record<string, unknown>;
    const sidecars: ChildProcess[] = [];
    const urls: string[] = [];
    const ports: number[] = [];
    const readies: Promise<{ http: string }>[] = [];
    for (let i = 0; i < o.pairs; i++) {
      const dir = mkdtempSync(join(tmpdir(), 'fleetlimit-nginx-'));
      dirs.push(dir);
      const cfg: Record<string, unknown> = {
        ...base,
        ...o.gateway,
        id: `edge-${i + 1}`,
        redis: { prefix: o.prefix },
      };
      if (o.policies !== undefined) {
        const sidecar = base.sidecar as { policies: Record<string, Record<string, unknown>> };
        const policies = { ...sidecar.policies };
        for (const [name, p] of Object.entries(o.policies)) policies[name] = { ...policies[name], ...p };
        cfg.sidecar = { ...sidecar, policies };
      }
      const file = join(dir, 'sidecar.json');
      writeFileSync(file, JSON.stringify(cfg));
      const s = startSidecarProcess(file, ['--redis', o.redisUrl]);
      children.push(s.child);
      sidecars.push(s.child);
      stderrOf.push(s.stderr);
      readies.push(s.ready);
    }
    // started side by side: each loads the CLI from src/ (tsx) on its own
    for (const r of await Promise.all(readies)) urls.push(r.http);
    for (let i = 0; i < o.pairs; i++) {
      const dir = dirs[i];
      const listen = await freePort();
      const sidecarPort = Number(new URL(urls[i]).port);
      writeFileSync(join(dir, 'fleetlimit.conf'), nginxConfFor(upstreamPort, sidecarPort, listen));
      writeFileSync(join(dir, 'nginx.conf'), mainConf(dir, o.accessLog));
      const nginx = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf')], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      children.push(nginx);
      await waitForHttp(listen, '/_nginx_up', 10_000).catch((err: Error) => {
        const log = (() => {
          try {
            return readFileSync(join(dir, 'error.log'), 'utf8');
          } catch {
            return '';
          }
        })();
        throw new Error(`${err.message}; nginx error.log: ${log}`);
      });
      ports.push(listen);
    }
    arrivals.clear();
    return {
      nginxPorts: ports,
      sidecarUrls: urls,
      sidecars,
      arrivals,
      accessLogs: dirs.map((d) => join(d, 'access.log')),
      get stderr() {
        return stderrOf.map((f) => f());
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

export interface FloodResult {
  sent: number;
  /** Answers by status code (0: the request failed). */
  statuses: Record<number, number>;
  startedAt: number;
  /**
   * Each 2xx, as the interval its decision was made in: from just before the request was sent to its
   * answer's headers, ms after startedAt (the sidecar decided somewhere between the two).
   */
  admits: { sent: number; answered: number }[];
}

/**
 * Poisson arrivals at `ratePerS` for `durationMs`, sent round-robin over `ports` (even routing) on
 * keep-alive connections, open loop (at most `maxInFlight` outstanding; arrivals past it are dropped
 * and not counted as sent), then a wait of up to 3 s for the answers. Bounded in count and time.
 */
export async function flood(
  ports: number[],
  opts: {
    ratePerS: number;
    durationMs: number;
    seed: number;
    path: string;
    headers: Record<string, string>;
    maxInFlight?: number;
  },
): Promise<FloodResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const rng = new Random(opts.seed);
  const statuses: Record<number, number> = {};
  const maxInFlight = opts.maxInFlight ?? 256;
  let inFlight = 0;
  let sent = 0;
  let next = 0;
  const pending: Promise<void>[] = [];
  const startedAt = Date.now();
  let at = rng.exponential(opts.ratePerS / 1000);
  const admits: FloodResult['admits'] = [];
  const one = (port: number) =>
    new Promise<void>((res) => {
      inFlight++;
      const sentAt = Date.now() - startedAt;
      const req = request({ host: '127.0.0.1', port, path: opts.path, headers: opts.headers, agent }, (r) => {
        const code = r.statusCode ?? 0;
        if (code >= 200 && code < 300) admits.push({ sent: sentAt, answered: Date.now() - startedAt });
        r.resume();
        r.on('end', () => {
          statuses[r.statusCode ?? 0] = (statuses[r.statusCode ?? 0] ?? 0) + 1;
          inFlight--;
          res();
        });
      });
      req.on('error', () => {
        statuses[0] = (statuses[0] ?? 0) + 1;
        inFlight--;
        res();
      });
      req.end();
    });
  while (at < opts.durationMs) {
    const now = Date.now() - startedAt;
    while (at <= now && at < opts.durationMs) {
      if (inFlight < maxInFlight) {
        pending.push(one(ports[next++ % ports.length]));
        sent++;
      }
      at += rng.exponential(opts.ratePerS / 1000);
    }
    await new Promise((r) => setTimeout(r, Math.max(1, Math.min(5, at - (Date.now() - startedAt)))));
  }
  await Promise.race([Promise.all(pending), new Promise((r) => setTimeout(r, 3000))]);
  agent.destroy();
  return { sent, statuses, startedAt, admits };
}
