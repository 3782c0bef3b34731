/**
 * The soak's load in its own process, so that generating it never stalls a gateway's event loop:
 * open-loop Poisson arrivals over honest keys (each at `honestRate`) and flood keys (each at
 * `floodRate`), each to a gateway picked at random, over keep-alive HTTP. Bounded in time
 * (durationMs), in count (1.5 × the expected arrivals) and in requests waiting (maxInFlight).
 */
import { Agent, request } from 'node:http';
import { createHistogram } from 'node:perf_hooks';
import { childSetup, send } from '../../src/fleet/children.js';
import { Random } from '../../src/sim/random.js';
import { LoopMonitor } from './monitor.js';
import type { CoordinatorMessage, LoadConfig, LoadReport, SampleMessage } from './protocol.js';

const cfg = childSetup<LoadConfig>();
const monitor = new LoopMonitor();
const agents = cfg.gatewayPorts.map(() => new Agent({ keepAlive: true, maxSockets: 32 }));

const keys = [
  ...Array.from({ length: cfg.honestKeys }, (_, i) => `user:${i}`),
  ...Array.from({ length: cfg.floodKeys }, (_, i) => `flood:${i}`),
];
const total = cfg.honestKeys * cfg.honestRate + cfg.floodKeys * cfg.floodRate;
const honestShare = (cfg.honestKeys * cfg.honestRate) / total;
const maxRequests = Math.ceil((total * cfg.durationMs * 1.5) / 1000);

const c = { requests: 0, ok: 0, limited: 0, failed: 0, skipped: 0, honestRequests: 0, honestRejected: 0 };
let inFlight = 0;
const latencyUs = createHistogram();
const lateUs = createHistogram();

function fire(g: number, key: string, honest: boolean): void {
  const t0 = performance.now();
  inFlight++;
  c.requests++;
  if (honest) c.honestRequests++;
  let finished = false;
  const finish = (status: number) => {
    if (finished) return;
    finished = true;
    inFlight--;
    latencyUs.record(Math.max(1, Math.round((performance.now() - t0) * 1000)));
    if (status === 200) c.ok++;
    else if (status === 429) {
      c.limited++;
      if (honest) c.honestRejected++;
    } else c.failed++;
  };
  const req = request(
    { host: '127.0.0.1', port: cfg.gatewayPorts[g], path: `/k/${encodeURIComponent(key)}`, agent: agents[g] },
    (res) => {
      res.resume();
      res.on('end', () => finish(res.statusCode ?? 0));
      res.on('error', () => finish(0));
    },
  );
  req.on('error', () => finish(0));
  req.end();
}

let sampler: ReturnType<typeof setInterval> | undefined;

function run(): void {
  const rng = new Random(cfg.seed);
  const t0 = performance.now();
  let next = rng.exponential(total / 1000);
  sampler = setInterval(() => {
    const msg: SampleMessage = {
      type: 'sample',
      from: 'load',
      sample: monitor.sample(false),
      counters: { ...c },
    };
    send(msg);
  }, cfg.sampleS * 1000);
  const tick = () => {
    const now = performance.now() - t0;
    while (next <= now && next < cfg.durationMs && c.requests + c.skipped < maxRequests) {
      lateUs.record(Math.max(1, Math.round((now - next) * 1000)));
      next += rng.exponential(total / 1000);
      const honest = rng.uniform() < honestShare;
      const key = honest
        ? keys[Math.floor(rng.uniform() * cfg.honestKeys)]
        : keys[cfg.honestKeys + Math.floor(rng.uniform() * cfg.floodKeys)];
      const g = Math.floor(rng.uniform() * cfg.gatewayPorts.length);
      if (inFlight >= cfg.maxInFlight) c.skipped++;
      else fire(g, key, honest);
    }
    if (next < cfg.durationMs && c.requests + c.skipped < maxRequests)
      setTimeout(tick, Math.max(0, Math.floor(next - (performance.now() - t0))));
    else drain(performance.now() + 5000);
  };
  tick();
}

function drain(deadline: number): void {
  if (inFlight > 0 && performance.now() < deadline) {
    setTimeout(() => drain(deadline), 10);
    return;
  }
  clearInterval(sampler);
  for (const a of agents) a.destroy();
  const ms = (us: number) => us / 1000;
  const report: LoadReport = {
    type: 'report',
    loop: monitor.summary(),
    ...c,
    // still unanswered at the deadline: failed
    failed: c.failed + inFlight,
    latencyMs: {
      p50: ms(latencyUs.percentile(50)),
      p99: ms(latencyUs.percentile(99)),
      max: ms(latencyUs.max),
    },
    sendLateMs: { p99: ms(lateUs.percentile(99)), max: ms(lateUs.max) },
  };
  send(report);
}

process.on('message', (m: CoordinatorMessage) => {
  if (m.type === 'start') run();
  else if (m.type === 'stop') {
    monitor.stop();
    process.exit(0);
  }
});
send({ type: 'ready' });
