// Issue 32: a descriptor entry value that is not valid UTF-8 was decoded lossily (each ill-formed
// byte became U+FFFD), so "a\xff", "a\xfe" and "a\uFFFD" were one key, one counter: one client's
// requests could spend another's limit, and distinct values were merged. Over HTTP (NGINX) header
// bytes stay apart. Now the sidecar takes the entry's bytes: valid UTF-8 keys as its text, anything
// else with each ill-formed byte written as \xHH, which no valid value's key can hold (a backslash
// in a value is written doubled).
//
// The request is encoded here by hand, so that it can hold any bytes (a client's proto with string
// fields can only send valid UTF-8, as Envoy's own C++ client may not: header values are bytes).
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-file.js';
import { loadRateLimitService } from '../../src/sidecar/grpc-server.js';
import { type Sidecar, startSidecar } from '../../src/sidecar/sidecar.js';
import { MemoryStore } from '../../src/store/memory-store.js';

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** A length-delimited field (wire type 2). */
function field(no: number, body: Uint8Array | number[]): number[] {
  return [(no << 3) | 2, ...varint(body.length), ...body];
}

/** RateLimitRequest { domain, descriptors: [{ entries: [{ key, value }] }] }, value as raw bytes. */
function request(domain: string, key: string, value: Uint8Array): Buffer {
  const entry = [...field(1, Buffer.from(key)), ...field(2, value)];
  const descriptor = field(1, entry);
  return Buffer.from([...field(1, Buffer.from(domain)), ...field(2, descriptor)]);
}

interface Status {
  code: string;
  limit_remaining: number;
}

let sc: Sidecar | null = null;
let client: grpc.Client | null = null;
afterEach(async () => {
  client?.close();
  client = null;
  await sc?.stop();
  sc = null;
});

describe('gRPC descriptor values that are not valid UTF-8', () => {
  it('"a\\xff", "a\\xfe", "a\\uFFFD" and "a\\\\xff" are four counters, as over HTTP', async () => {
    sc = await startSidecar(
      loadConfig({
        id: 'sc-bytes',
        design: 'shared-counter',
        limit: 1,
        windowMs: 60_000,
        gateways: 1,
        syncMs: 1000,
        sidecar: { http: { port: 0 }, grpc: { port: 0, domain: 'edge', descriptors: [['user']] } },
      }),
      { store: new MemoryStore(), grpcPort: 0 },
    );
    client = new grpc.Client(sc.grpcAddress as string, grpc.credentials.createInsecure());
    const decode = loadRateLimitService().service.ShouldRateLimit.responseDeserialize;
    const ask = (value: Uint8Array) =>
      new Promise<{ overall_code: string; statuses: Status[] }>((res, rej) => {
        (client as grpc.Client).makeUnaryRequest(
          '/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit',
          (b: Buffer) => b,
          (b: Buffer) => decode(b) as { overall_code: string; statuses: Status[] },
          request('edge', 'user', value),
          (err, v) => (err === null && v !== undefined ? res(v) : rej(err)),
        );
      });
    const values = [
      Buffer.from([0x61, 0xff]), // a, then a byte that is never UTF-8
      Buffer.from([0x61, 0xfe]),
      Buffer.from('a\uFFFD', 'utf8'), // the replacement character itself, valid UTF-8
      Buffer.from('a\\xff', 'utf8'), // a backslash, x, f, f: the text a lossless escape could be mistaken for
    ];
    const first = [];
    for (const v of values) first.push((await ask(v)).overall_code);
    // L = 1: each value's first request is admitted only if it has a counter of its own
    expect(first).toEqual(['OK', 'OK', 'OK', 'OK']);
    // and each value is held to its own limit: a second request of each is over it
    const second = [];
    for (const v of values) second.push((await ask(v)).overall_code);
    expect(second).toEqual(['OVER_LIMIT', 'OVER_LIMIT', 'OVER_LIMIT', 'OVER_LIMIT']);
  });
});
