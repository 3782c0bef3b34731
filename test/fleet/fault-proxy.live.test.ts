import { createServer, type Server, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseInjection } from '../../src/cli/inject-flag.js';
import { FaultProxy } from '../../src/fleet/fault-proxy.js';

// An echo server stands in for Redis: every byte comes back, so a round trip is one write and its echo.
let echo: Server | null = null;
let proxy: FaultProxy | null = null;

afterEach(async () => {
  await proxy?.close();
  proxy = null;
  await new Promise<void>((r) => (echo === null ? r() : echo.close(() => r())));
  echo = null;
});

async function startEcho(): Promise<number> {
  echo = createServer((s) => s.pipe(s));
  await new Promise<void>((r) => echo!.listen(0, '127.0.0.1', () => r()));
  return (echo.address() as { port: number }).port;
}

function connect(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = new Socket();
    s.once('error', reject);
    s.connect(port, '127.0.0.1', () => resolve(s));
  });
}

function roundTrip(
  s: Socket,
  msg: string,
  timeoutMs = 2000,
): Promise<{ reply: string; ms: number } | 'timeout' | 'closed'> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    let got = '';
    const done = (v: { reply: string; ms: number } | 'timeout' | 'closed') => {
      clearTimeout(timer);
      s.off('data', onData);
      s.off('close', onClose);
      resolve(v);
    };
    const onData = (d: Buffer) => {
      got += d.toString();
      if (got.length >= msg.length) done({ reply: got, ms: performance.now() - t0 });
    };
    const onClose = () => done('closed');
    const timer = setTimeout(() => done('timeout'), timeoutMs);
    s.on('data', onData);
    s.once('close', onClose);
    s.write(msg);
  });
}

describe('FaultProxy', () => {
  it('forwards untouched, then adds the latency to each round trip', async () => {
    proxy = await FaultProxy.start({ targetPort: await startEcho() });
    const s = await connect(proxy.port);
    const plain = await roundTrip(s, 'PING\r\n');
    expect(plain).toMatchObject({ reply: 'PING\r\n' });
    proxy.latencyUpMs = 30;
    proxy.latencyDownMs = 30;
    const slow = await roundTrip(s, 'hello');
    expect(slow).toMatchObject({ reply: 'hello' });
    // each hop holds a chunk until performance.now() passes its due time (pump re-arms a timer that
    // fires early), so the round trip is never under 30 + 30 ms, however idle or busy the box
    expect((slow as { ms: number }).ms).toBeGreaterThanOrEqual(60);
    s.destroy();
  });

  it('a cut carries nothing; on restore the held bytes arrive in order', async () => {
    proxy = await FaultProxy.start({ targetPort: await startEcho() });
    const s = await connect(proxy.port);
    proxy.cut();
    expect(await roundTrip(s, 'abc', 150)).toBe('timeout');
    let got = '';
    s.on('data', (d) => {
      got += d.toString();
    });
    s.write('def');
    proxy.restore();
    // the held bytes come when they come: waited for (2 s at most), not slept on
    const until = performance.now() + 2000;
    while (got.length < 6 && performance.now() < until) await new Promise((r) => setTimeout(r, 5));
    expect(got).toBe('abcdef');
    expect(proxy.stats().cuts).toBe(1);
    s.destroy();
  });

  it('loss = 100 %: the reply never comes and the connection is reset after the hold', async () => {
    proxy = await FaultProxy.start({ targetPort: await startEcho(), loss: { fraction: 1, holdMs: 100 } });
    const s = await connect(proxy.port);
    s.on('error', () => {});
    expect(await roundTrip(s, 'x', 1000)).toBe('closed');
    expect(proxy.stats().lostReplies).toBe(1);
  });

  it('refuses a target off the loopback', () => {
    expect(() => FaultProxy.start({ targetHost: '10.0.0.1', targetPort: 6379 })).toThrow(/loopback/);
  });
});

describe('--inject', () => {
  it('parses latency, loss and down; errors name the flag', () => {
    expect(parseInjection('latency=20ms')).toEqual({ kind: 'latency', ms: 20 });
    expect(parseInjection('loss=5%')).toEqual({ kind: 'loss', fraction: 0.05, holdMs: 250 });
    expect(parseInjection('loss=5%/1s')).toEqual({ kind: 'loss', fraction: 0.05, holdMs: 1000 });
    expect(parseInjection('down=2s@10s')).toEqual({ kind: 'down', forMs: 2000, atMs: 10_000 });
    expect(() => parseInjection('jitter=5ms')).toThrow(/^--inject: /);
    expect(() => parseInjection('loss=5')).toThrow(/^--inject: loss/);
    expect(() => parseInjection('down=2s')).toThrow(/^--inject: down/);
  });
});
