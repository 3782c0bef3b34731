/**
 * The upstream: answers 200 to everything and logs each request from a gateway: the instant it
 * reached the upstream (this machine's clock), the instant the gateway admitted it (the
 * x-fleet-admitted-at header, on the gateway's decision clock: the store's time as that gateway
 * estimates it) and which gateway sent it. The run's admitted counts come from this log, not from the
 * gateways' counters; the two instants differ by the forwarding delay and the gateway's clock error.
 */
import { createServer } from 'node:http';
import { childSetup, cpuSince, send, wallNow } from './children.js';
import type { CoordinatorMessage, UpstreamReport } from './protocol.js';

childSetup<Record<string, never>>();

let times: Float64Array = new Float64Array(1 << 14);
let stamps: Float64Array = new Float64Array(1 << 14);
const gateways: string[] = [];
let n = 0;
let direct = 0;
let warmup = 0;

const server = createServer((req, res) => {
  // the log entry is taken before anything else, at the request's arrival
  const t = wallNow();
  if (req.url === '/direct') direct++;
  else if (req.url === '/warmup') warmup++;
  else {
    if (n === times.length) {
      times = grow(times);
      stamps = grow(stamps);
    }
    const h = req.headers['x-fleet-admitted-at'];
    stamps[n] = typeof h === 'string' ? Number(h) : Number.NaN;
    const g = req.headers['x-fleet-gateway'];
    gateways.push(typeof g === 'string' ? g : '');
    times[n++] = t;
  }
  res.setHeader('Content-Type', 'text/plain');
  res.end('ok\n');
});
server.keepAliveTimeout = 30_000;

function grow(a: Float64Array): Float64Array {
  const g = new Float64Array(a.length * 2);
  g.set(a);
  return g;
}

let cpuAtReady = process.cpuUsage();
server.listen(0, '127.0.0.1', () => {
  cpuAtReady = process.cpuUsage();
  const a = server.address();
  send({ type: 'ready', port: typeof a === 'object' && a !== null ? a.port : 0 });
});

process.on('message', (m: CoordinatorMessage) => {
  if (m.type === 'report') {
    const report: UpstreamReport = {
      type: 'report',
      times: Array.from(times.subarray(0, n)),
      admittedAt: Array.from(stamps.subarray(0, n)),
      gateways,
      direct,
      warmup,
      cpuMs: cpuSince(cpuAtReady),
    };
    send(report);
  } else if (m.type === 'stop') {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
