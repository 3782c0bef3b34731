import { createServer, type Server, Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of one server (redis-server), for faults the process signals cannot
 * make: latency, a partition, a cut connection. Loopback only; `close()` ends every connection.
 *
 * - `replyDelayMs`: every chunk from the server to the client is held this long (order kept), so a
 *   store call lands at once but its reply comes late, as a slow or congested path back does.
 * - `requestDelayMs`: the same for client → server.
 * - `blackhole()`: bytes in both directions are swallowed, connections stay open (a partition).
 * - `down()`: every connection is cut (RST-like destroy) and new ones are refused until `up()`.
 */
export interface TcpProxy {
  readonly host: string;
  readonly port: number;
  readonly url: string;
  replyDelayMs: number;
  requestDelayMs: number;
  blackhole(on?: boolean): void;
  down(): void;
  up(): void;
  /** Connections accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';

export async function startTcpProxy(targetPort: number, targetHost = HOST): Promise<TcpProxy> {
  const conns = new Set<Socket>();
  let isDown = false;
  let holed = false;
  let accepted = 0;
  const state = { replyDelayMs: 0, requestDelayMs: 0 };

  /** Forwards src → dst with the direction's delay, keeping chunk order. */
  const pipe = (src: Socket, dst: Socket, delay: () => number) => {
    let lastAt = 0;
    src.on('data', (chunk: Buffer) => {
      if (holed) return;
      const d = delay();
      if (d <= 0 && lastAt <= Date.now()) {
        if (!dst.destroyed) dst.write(chunk);
        return;
      }
      const at = Math.max(Date.now() + d, lastAt);
      lastAt = at;
      const t = setTimeout(
        () => {
          if (!dst.destroyed && !holed) dst.write(chunk);
        },
        Math.max(0, at - Date.now()),
      );
      t.unref?.();
    });
  };

  const server: Server = createServer((client) => {
    if (isDown) {
      client.destroy();
      return;
    }
    accepted++;
    const upstream = new Socket();
    conns.add(client);
    conns.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      conns.delete(client);
      conns.delete(upstream);
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    pipe(client, upstream, () => state.requestDelayMs);
    pipe(upstream, client, () => state.replyDelayMs);
    upstream.connect(targetPort, targetHost);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  const cutAll = () => {
    for (const s of conns) s.destroy();
    conns.clear();
  };
  return {
    host: HOST,
    port,
    url: `redis://${HOST}:${port}`,
    get replyDelayMs() {
      return state.replyDelayMs;
    },
    set replyDelayMs(v: number) {
      state.replyDelayMs = v;
    },
    get requestDelayMs() {
      return state.requestDelayMs;
    },
    set requestDelayMs(v: number) {
      state.requestDelayMs = v;
    },
    get accepted() {
      return accepted;
    },
    blackhole(on = true) {
      holed = on;
    },
    down() {
      isDown = true;
      cutAll();
    },
    up() {
      isDown = false;
    },
    close() {
      isDown = true;
      cutAll();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
