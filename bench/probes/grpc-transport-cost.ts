/**
 * Issue 35: what the gRPC door's transport costs per call, grpc-js against a bare node:http2 unary
 * handler, with the same trivial answer (one prebuilt RateLimitResponse, as the sidecar writes them)
 * so that only the transport differs. A server process of each kind in turn (the order alternates
 * round to round), the grpc-js client of the capacity probe in a closed loop of 32 from this process;
 * the figure is the server's CPU per call (/proc). Says whether a hand-rolled HTTP/2 handler would be
 * worth its code: the sidecar keeps grpc-js unless the difference is a large share of a decision.
 * Usage: nice node --import tsx bench/probes/grpc-transport-cost.ts [SECONDS=5] [ROUNDS=3]
 *   (a server alone: … grpc-transport-cost.ts serve grpc-js|http2, prints "PORT <n>")
 * Loopback only; every child ended by PID.
 */
import { spawn } from 'node:child_process';
import http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { RLS_SERVER_OPTIONS, rateLimitServerDefinition } from '../../src/sidecar/grpc-server.js';
import { cpuMs, grpcSender, waitForLine } from '../sidecar.js';
import { exited, killChild } from '../util.js';

// written once by the service's own serializer (proto-loader)
const ANSWER = rateLimitServerDefinition().ShouldRateLimit.responseSerialize({
  overall_code: 'OK',
  statuses: [
    {
      code: 'OK',
      current_limit: Object.freeze({ name: 'default', requests_per_unit: 100, unit: 'MINUTE' }),
      limit_remaining: 99,
      duration_until_reset: { seconds: 59, nanos: 0 },
    },
  ],
  response_headers_to_add: [
    { key: 'RateLimit-Policy', value: '"default";q=100;w=60' },
    { key: 'RateLimit', value: '"default";r=99;t=59' },
  ],
}) as Buffer;

function serveGrpcJs(): void {
  const def = rateLimitServerDefinition();
  // the answer's bytes as they are: the serializer passes them on
  const service = { ShouldRateLimit: { ...def.ShouldRateLimit, responseSerialize: (b: Buffer) => b } };
  const server = new grpc.Server(RLS_SERVER_OPTIONS);
  server.addService(service, {
    ShouldRateLimit: (call: grpc.ServerUnaryCall<unknown, Buffer>, cb: grpc.sendUnaryData<Buffer>) => {
      if (call.request === null) throw new Error('no request');
      cb(null, ANSWER);
    },
  });
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err !== null) throw err;
    process.stdout.write(`PORT ${port}\n`);
  });
}

/** A gRPC unary call answered on node:http2 alone: the request's frames read, decoded, the answer sent. */
function serveHttp2(): void {
  const decode = rateLimitServerDefinition().ShouldRateLimit.requestDeserialize;
  const framed = Buffer.alloc(5 + ANSWER.length);
  framed.writeUInt32BE(ANSWER.length, 1);
  ANSWER.copy(framed, 5);
  const server = http2.createServer();
  server.on('stream', (stream) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      decode(body.subarray(5, 5 + body.readUInt32BE(1)));
      stream.respond({ ':status': 200, 'content-type': 'application/grpc+proto' }, { waitForTrailers: true });
      stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0', 'grpc-message': '' }));
      stream.end(framed);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`PORT ${(server.address() as { port: number }).port}\n`);
  });
}

async function measure(kind: string, seconds: number): Promise<{ kind: string; us: number; perS: number }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/probes/grpc-transport-cost.ts', 'serve', kind],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const m = await waitForLine(child, /PORT (\d+)/, kind);
    const s = grpcSender(`127.0.0.1:${m[1]}`);
    const loop = async (ms: number) => {
      let n = 0;
      const end = performance.now() + ms;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (performance.now() < end) if (await s.send('k')) n++;
        }),
      );
      return n;
    };
    try {
      await loop(1000);
      const c0 = cpuMs(child.pid as number);
      const t0 = performance.now();
      const n = await loop(seconds * 1000);
      const wall = (performance.now() - t0) / 1000;
      return { kind, us: ((cpuMs(child.pid as number) - c0) * 1000) / n, perS: n / wall };
    } finally {
      s.close();
    }
  } finally {
    killChild(child);
    await exited(child);
  }
}

const args = process.argv.slice(2);
if (args[0] === 'serve') {
  if (args[1] === 'grpc-js') serveGrpcJs();
  else if (args[1] === 'http2') serveHttp2();
  else throw new Error(`serve grpc-js|http2, got ${args[1]}`);
} else {
  const seconds = Number(args[0] ?? 5);
  const rounds = Number(args[1] ?? 3);
  const rows: { kind: string; us: number; perS: number }[] = [];
  for (let r = 0; r < rounds; r++) {
    const kinds = r % 2 === 0 ? ['grpc-js', 'http2'] : ['http2', 'grpc-js'];
    const got = [];
    for (const k of kinds) got.push(await measure(k, seconds));
    rows.push(...got);
    console.log(`round ${r}: ${got.map((g) => `${g.kind} ${g.us.toFixed(1)}`).join(', ')} µs/call`);
  }
  const fmt = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return `${s[0].toFixed(1)} / ${s[Math.floor(s.length / 2)].toFixed(1)} / ${s[s.length - 1].toFixed(1)}`;
  };
  console.log(`closed loop of 32, ${seconds} s × ${rounds} (min / median / max)`);
  console.log('| server | calls/s | server CPU µs/call |');
  console.log('| --- | --- | --- |');
  for (const k of ['grpc-js', 'http2']) {
    const r = rows.filter((x) => x.kind === k);
    console.log(`| ${k} | ${fmt(r.map((x) => x.perS))} | ${fmt(r.map((x) => x.us))} |`);
  }
}
