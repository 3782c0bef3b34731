/**
 * The load: the simulator's arrivals, sent over HTTP to the gateways' ports on keep-alive
 * connections, plus a thin baseline stream straight to the upstream. Open loop (arrivals do not wait
 * for answers), bounded in count (maxRequests, maxInFlight) and in time (durationMs + drainMs).
 */
import { Agent, request } from 'node:http';
import { Random } from '../sim/random.js';
import { Arrivals } from './arrivals.js';
import { childSetup, send, wallNow } from './children.js';
import type { CoordinatorMessage, LoadConfig, LoadReport } from './protocol.js';
import { summarize } from './stats.js';

const cfg = childSetup<LoadConfig>();

const agents = cfg.gatewayPorts.map(() => new Agent({ keepAlive: true, maxSockets: 64 }));
const directAgent = new Agent({ keepAlive: true, maxSockets: 8 });

let inFlight = 0;
let sent = 0;
let scheduled = 0;
let skipped = 0;
let ok = 0;
let limited = 0;
let failed = 0;
const lag: number[] = [];
const all: number[] = [];
const admitted: number[] = [];
const rejected: number[] = [];
const direct: number[] = [];

function fire(port: number, agent: Agent, path: string, done: (status: number, ms: number) => void): void {
  const at = wallNow();
  inFlight++;
  let finished = false;
  const finish = (status: number) => {
    if (finished) return;
    finished = true;
    inFlight--;
    done(status, wallNow() - at);
  };
  const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
    res.resume();
    res.on('end', () => finish(res.statusCode ?? 0));
    res.on('error', () => finish(0));
  });
  req.on('error', () => finish(0));
  req.end();
}

function viaGateway(g: number): void {
  sent++;
  fire(cfg.gatewayPorts[g], agents[g], '/', (status, ms) => {
    if (status === 200) {
      ok++;
      admitted.push(ms);
    } else if (status === 429) {
      limited++;
      rejected.push(ms);
    } else {
      failed++;
      return;
    }
    all.push(ms);
  });
}

function run(): void {
  const arrivals = new Arrivals(
    cfg.traffic,
    cfg.load,
    cfg.limit,
    cfg.windowMs,
    cfg.routing,
    cfg.gatewayPorts.length,
    cfg.seed,
  );
  // its own stream, so the baseline never shifts the gateway arrivals of a seed
  const directRng = new Random(cfg.seed ^ 0x5bd1e995);
  let nextDirect =
    cfg.directRate > 0 ? directRng.exponential(cfg.directRate / 1000) : Number.POSITIVE_INFINITY;
  let next = arrivals.take();
  const t0 = wallNow();

  const tick = () => {
    const now = wallNow() - t0;
    while (next.t <= now && next.t < cfg.durationMs && scheduled < cfg.maxRequests) {
      scheduled++;
      lag.push(now - next.t);
      if (inFlight >= cfg.maxInFlight) skipped++;
      else viaGateway(next.gateway);
      next = arrivals.take();
    }
    while (nextDirect <= now && nextDirect < cfg.durationMs) {
      fire(cfg.upstreamPort, directAgent, '/direct', (status, ms) => {
        if (status === 200) direct.push(ms);
      });
      nextDirect += directRng.exponential(cfg.directRate / 1000);
    }
    if (now < cfg.durationMs && scheduled < cfg.maxRequests) {
      const due = Math.min(next.t, nextDirect) - (wallNow() - t0);
      setTimeout(tick, Math.max(0, Math.floor(due)));
    } else drain(t0, wallNow() + cfg.drainMs);
  };
  tick();
}

function drain(startedAt: number, deadline: number): void {
  if (inFlight > 0 && wallNow() < deadline) {
    setTimeout(() => drain(startedAt, deadline), 10);
    return;
  }
  const report: LoadReport = {
    type: 'report',
    startedAt,
    scheduled,
    sent,
    skipped,
    ok,
    limited,
    failed: failed + inFlight,
    unanswered: inFlight,
    lag: summarize(lag),
    viaGateway: summarize(all),
    admittedViaGateway: summarize(admitted),
    limitedViaGateway: summarize(rejected),
    direct: summarize(direct),
  };
  for (const a of agents) a.destroy();
  directAgent.destroy();
  send(report);
}

process.on('message', (m: CoordinatorMessage) => {
  if (m.type === 'go') run();
  else if (m.type === 'stop') process.exit(0);
});
send({ type: 'ready' });
