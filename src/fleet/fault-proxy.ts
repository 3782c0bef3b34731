import { createServer, type Server, Socket } from 'node:net';

/**
 * A loopback TCP proxy that puts faults between clients (the gateways) and a server (Redis), for live
 * runs and fault tests. It never looks inside the byte stream; what each fault does on the wire:
 *
 * - latency: every chunk read from either side is held `latencyUpMs` (client → server) or
 *   `latencyDownMs` (server → client) before it is written on, in order. `latency=X` on the command
 *   line splits X evenly, so every round trip takes X longer and the one-way delays are symmetric
 *   (the runtime's clock offset, learned at the midpoint of a sync, stays right).
 * - loss: each chunk read from the server is, with probability `fraction`, dropped, and with it the
 *   connection: from then on nothing more is forwarded in either direction (blackholed: the client's
 *   call hangs as when a reply is lost for good, and its own timeout must fire), and `holdMs` later
 *   both sockets are destroyed (the client sees the connection reset and reconnects). A TCP stream
 *   cannot lose one reply and carry on — the replies behind it would answer the wrong calls — so a
 *   lost reply always costs its connection. Client → server bytes are never dropped.
 * - down (cut/restore): the link carries nothing either way. Bytes already read are held and reading
 *   stops, so the kernel buffers fill as they would behind a cut cable; new connections are accepted
 *   (the connect succeeds) but carry nothing either. On restore, everything held is delivered in
 *   order, as TCP retransmission would after the link came back. No connection is closed by a cut.
 *
 * Only loopback targets are accepted.
 */
export interface FaultProxyOptions {
  targetHost?: string;
  targetPort: number;
  latencyUpMs?: number;
  latencyDownMs?: number;
  loss?: { fraction: number; holdMs: number };
  /** Uniform in [0, 1) for the loss draws. @default Math.random */
  random?: () => number;
}

export interface FaultProxyStats {
  connections: number;
  /** server → client chunks dropped by `loss`, each costing its connection */
  lostReplies: number;
  /** cuts made */
  cuts: number;
  /** ms the link was down in total */
  downMs: number;
}

interface Held {
  due: number;
  buf: Buffer;
}

/** One direction of one connection. */
class Pipe {
  private readonly queue: Held[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private ended = false;

  constructor(
    private readonly proxy: FaultProxy,
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly delay: () => number,
    private readonly conn: Connection,
  ) {
    from.on('data', (buf: Buffer) => this.onData(buf));
    from.on('end', () => {
      this.ended = true;
      this.pump();
    });
  }

  private onData(buf: Buffer): void {
    if (this.conn.dead) return;
    if (this.conn.shouldLose(this)) return;
    this.queue.push({ due: performance.now() + this.delay(), buf });
    this.pump();
  }

  pump(): void {
    if (this.conn.dead || this.proxy.isDown) return;
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const now = performance.now();
    while (this.queue.length > 0 && this.queue[0].due <= now) {
      const h = this.queue.shift()!;
      if (!this.to.write(h.buf)) {
        // backpressure: read no more until the other side drains
        this.from.pause();
        this.to.once('drain', () => {
          if (!this.proxy.isDown) this.from.resume();
        });
      }
    }
    if (this.queue.length > 0) {
      this.timer = setTimeout(() => this.pump(), Math.max(0, this.queue[0].due - now));
    } else if (this.ended) this.to.end();
  }

  pause(): void {
    this.from.pause();
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  resume(): void {
    this.from.resume();
    this.pump();
  }

  drop(): void {
    this.queue.length = 0;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}

class Connection {
  dead = false;
  readonly up: Pipe;
  readonly down: Pipe;

  constructor(
    private readonly proxy: FaultProxy,
    readonly client: Socket,
    readonly server: Socket,
    opts: { up: () => number; down: () => number },
  ) {
    this.up = new Pipe(proxy, client, server, opts.up, this);
    this.down = new Pipe(proxy, server, client, opts.down, this);
    const close = () => this.destroy();
    client.on('error', close);
    server.on('error', close);
    client.on('close', close);
    server.on('close', close);
  }

  /** The loss draw for a chunk from the server; a loss blackholes the connection, then resets it. */
  shouldLose(pipe: Pipe): boolean {
    if (pipe !== this.down || !this.proxy.loses()) return false;
    this.dead = true;
    this.up.drop();
    this.down.drop();
    const t = setTimeout(() => this.destroy(), this.proxy.lossHoldMs);
    t.unref?.();
    return true;
  }

  destroy(): void {
    this.dead = true;
    this.up.drop();
    this.down.drop();
    this.client.destroy();
    this.server.destroy();
    this.proxy.forget(this);
  }
}

export class FaultProxy {
  latencyUpMs: number;
  latencyDownMs: number;
  lossFraction: number;
  lossHoldMs: number;
  private readonly random: () => number;
  private readonly conns = new Set<Connection>();
  private down = false;
  private downSince = 0;
  private readonly counters: FaultProxyStats = { connections: 0, lostReplies: 0, cuts: 0, downMs: 0 };

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly targetHost: string,
    private readonly targetPort: number,
    opts: FaultProxyOptions,
  ) {
    this.latencyUpMs = nonNegative('latencyUpMs', opts.latencyUpMs ?? 0);
    this.latencyDownMs = nonNegative('latencyDownMs', opts.latencyDownMs ?? 0);
    this.lossFraction = 0;
    this.lossHoldMs = 0;
    if (opts.loss !== undefined) this.setLoss(opts.loss.fraction, opts.loss.holdMs);
    this.random = opts.random ?? Math.random;
  }

  /** Listens on a free loopback port, forwarding to targetHost:targetPort. */
  static start(opts: FaultProxyOptions): Promise<FaultProxy> {
    const host = opts.targetHost ?? '127.0.0.1';
    if (!isLoopback(host)) throw new Error(`fault proxy: target must be a loopback address, got ${host}`);
    return new Promise((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const a = server.address();
        const port = typeof a === 'object' && a !== null ? a.port : 0;
        const proxy = new FaultProxy(server, port, host, opts.targetPort, opts);
        server.on('connection', (c) => proxy.accept(c));
        resolve(proxy);
      });
    });
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get isDown(): boolean {
    return this.down;
  }

  stats(): FaultProxyStats {
    const extra = this.down ? performance.now() - this.downSince : 0;
    return { ...this.counters, downMs: this.counters.downMs + extra };
  }

  setLoss(fraction: number, holdMs: number): void {
    if (!(fraction >= 0 && fraction <= 1))
      throw new Error(`fault proxy: loss must be in [0, 1], got ${fraction}`);
    this.lossFraction = fraction;
    this.lossHoldMs = nonNegative('loss hold', holdMs);
  }

  /** The link goes down: nothing is carried either way until restore(). */
  cut(): void {
    if (this.down) return;
    this.down = true;
    this.downSince = performance.now();
    this.counters.cuts++;
    for (const c of this.conns) {
      c.up.pause();
      c.down.pause();
    }
  }

  restore(): void {
    if (!this.down) return;
    this.down = false;
    this.counters.downMs += performance.now() - this.downSince;
    for (const c of this.conns) {
      c.up.resume();
      c.down.resume();
    }
  }

  /** Cuts the link atMs from now for forMs; the returned timers are unref'd, close() clears them. */
  scheduleDown(atMs: number, forMs: number): void {
    const a = setTimeout(() => {
      this.cut();
      const b = setTimeout(() => this.restore(), forMs);
      this.timers.add(b);
    }, atMs);
    this.timers.add(a);
  }

  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  /** @internal */
  loses(): boolean {
    if (this.lossFraction > 0 && this.random() < this.lossFraction) {
      this.counters.lostReplies++;
      return true;
    }
    return false;
  }

  /** @internal */
  forget(c: Connection): void {
    this.conns.delete(c);
  }

  private accept(client: Socket): void {
    this.counters.connections++;
    client.setNoDelay(true);
    const server = new Socket();
    server.setNoDelay(true);
    server.connect(this.targetPort, this.targetHost);
    const conn = new Connection(this, client, server, {
      up: () => this.latencyUpMs,
      down: () => this.latencyDownMs,
    });
    this.conns.add(conn);
    if (this.down) {
      conn.up.pause();
      conn.down.pause();
    }
  }

  /** Stops listening and destroys every connection. */
  close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    if (this.down) this.restore();
    for (const c of [...this.conns]) c.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function nonNegative(field: string, v: number): number {
  if (!(Number.isFinite(v) && v >= 0))
    throw new Error(`fault proxy: ${field} must be a finite number >= 0, got ${v}`);
  return v;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
