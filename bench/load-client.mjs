/**
 * CPU the fleet's load process spends per request: node:http's client (keep-alive Agent) against the
 * lean client it uses now (src/fleet/lean-http.ts). One node:http server in a child process answers
 * 429 with a RateLimit-sized header block, as a gateway does to a flood; this process sends to it
 * open loop at RATE req/s for SECONDS, one timer per tick, and reads its own CPU time (user + system).
 * Alternates the two clients, REPS times each; prints the medians.
 *   npm run build && node bench/load-client.mjs [RATE=1667] [SECONDS=8] [REPS=3]
 */
import { fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { LeanHttpPool } from '../dist/fleet/lean-http.js';

const [rate = 1667, seconds = 8, reps = 3] = process.argv.slice(2).map(Number);

if (process.argv[2] === 'server') {
  const { createServer } = await import('node:http');
  const srv = createServer((_req, res) => {
    res.statusCode = 429;
    res.setHeader('RateLimit-Policy', '"default";q=100;w=6');
    res.setHeader('RateLimit', '"default";r=0;t=1');
    res.setHeader('Retry-After', '1');
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end('Too Many Requests\n');
  });
  srv.keepAliveTimeout = 30_000;
  srv.listen(0, '127.0.0.1', () => process.send({ port: srv.address().port }));
  process.on('disconnect', () => process.exit(0));
} else {
  const child = fork(new URL(import.meta.url).pathname, ['server']);
  const port = await new Promise((r) => child.once('message', (m) => r(m.port)));

  const viaNodeHttp = () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    return {
      get: (done) => {
        const req = request({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
          res.resume();
          res.on('end', () => done(res.statusCode ?? 0));
        });
        req.on('error', () => done(0));
        req.end();
      },
      close: () => agent.destroy(),
    };
  };
  const viaLean = () => {
    const pool = new LeanHttpPool(port, '/', 64);
    return { get: (done) => pool.get(done), close: () => pool.destroy() };
  };

  /** Sends rate × seconds requests on schedule; resolves with CPU µs per answered request. */
  const drive = (client) =>
    new Promise((resolve) => {
      const total = Math.round(rate * seconds);
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      let sent = 0;
      let answered = 0;
      let bad = 0;
      const done = (status) => {
        answered++;
        if (status !== 429) bad++;
        if (answered === total) {
          const c = process.cpuUsage(cpu0);
          client.close();
          resolve({ usPerRequest: (c.user + c.system) / total, bad });
        }
      };
      const tick = () => {
        const due = Math.min(total, Math.floor(((performance.now() - t0) * rate) / 1000) + 1);
        while (sent < due) {
          sent++;
          client.get(done);
        }
        if (sent < total) setTimeout(tick, 1);
      };
      tick();
    });

  const results = { 'node:http': [], lean: [] };
  for (let i = 0; i < reps; i++) {
    for (const [name, make] of [
      ['node:http', viaNodeHttp],
      ['lean', viaLean],
    ]) {
      const r = await drive(make());
      if (r.bad > 0) throw new Error(`${name}: ${r.bad} answers were not 429`);
      results[name].push(r.usPerRequest);
    }
  }
  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const a = median(results['node:http']);
  const b = median(results.lean);
  console.log(
    `${rate} req/s for ${seconds} s, ${reps} runs each, load average ${loadavg()[0].toFixed(2)}: ` +
      `client CPU per request node:http ${a.toFixed(1)} µs, lean ${b.toFixed(1)} µs (${(a / b).toFixed(2)}×); ` +
      `at ${rate} req/s that is ${((a * rate) / 1e6).toFixed(2)} vs ${((b * rate) / 1e6).toFixed(2)} of a core`,
  );
  child.disconnect();
}
