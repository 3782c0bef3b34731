import { connect, type Socket } from 'node:net';

/** Called once per request: the response's status, or 0 when the connection failed first. */
export type Done = (status: number) => void;

const HEADER_END = Buffer.from('\r\n\r\n', 'latin1');
const CHUNKED_END = Buffer.from('\r\n0\r\n\r\n', 'latin1');

/**
 * A lean HTTP/1.1 GET client for the load process: keep-alive connections to one loopback port, one
 * request in flight per connection, a request prebuilt as one Buffer, and a reader that takes only
 * the status and the body's length from the response. node:http's client builds a ClientRequest, an
 * agent lookup, a header object and an IncomingMessage per request; at 1,667 req/s that was most of
 * the load process's CPU besides the socket writes themselves (profile: docs/fleet-compare.md), and a
 * load process short of CPU sends late, which is what the run must not measure.
 */
export class LeanHttpPool {
  private readonly requests = new Map<string, Buffer>();
  private readonly request: Buffer;
  private readonly idle: Connection[] = [];
  private readonly queue: { done: Done; request: Buffer }[] = [];
  private open = 0;
  /** connections opened over the pool's life */
  opened = 0;

  constructor(
    private readonly port: number,
    path: string,
    private readonly maxSockets: number,
  ) {
    this.request = this.requestFor(path);
  }

  private requestFor(path: string): Buffer {
    let r = this.requests.get(path);
    if (r === undefined) {
      r = Buffer.from(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${this.port}\r\nConnection: keep-alive\r\n\r\n`,
        'latin1',
      );
      // a few fixed paths are kept; many-keys paths (one per key) are built per request, not hoarded
      if (this.requests.size < 16) this.requests.set(path, r);
    }
    return r;
  }

  /** Sends one request (to the pool's path, or `path`) now on an idle connection, a new one, or when one comes free. */
  get(done: Done, path?: string): void {
    const request = path === undefined ? this.request : this.requestFor(path);
    const c = this.idle.pop();
    if (c !== undefined) c.send(request, done);
    else if (this.open < this.maxSockets) {
      this.open++;
      this.opened++;
      new Connection(this, this.port).send(request, done);
    } else this.queue.push({ done, request });
  }

  /** A connection finished its request and can take another. */
  released(c: Connection): void {
    const next = this.queue.shift();
    if (next !== undefined) c.send(next.request, next.done);
    else this.idle.push(c);
  }

  /** A connection closed (by either side, or failed). */
  closed(c: Connection): void {
    this.open--;
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
    // a request waiting for a connection gets a new one
    const next = this.queue.shift();
    if (next !== undefined) {
      const c = this.idle.pop();
      if (c !== undefined) c.send(next.request, next.done);
      else {
        this.open++;
        this.opened++;
        new Connection(this, this.port).send(next.request, next.done);
      }
    }
  }

  destroy(): void {
    for (const q of this.queue.splice(0)) q.done(0);
    for (const c of this.idle.splice(0)) c.destroy();
  }
}

class Connection {
  private readonly socket: Socket;
  private buf: Buffer | null = null;
  private done: Done | null = null;
  private gone = false;

  constructor(
    private readonly pool: LeanHttpPool,
    port: number,
  ) {
    this.socket = connect({ host: '127.0.0.1', port, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', () => {
      // reported through 'close'
    });
    this.socket.on('close', () => this.onClose());
  }

  send(request: Buffer, done: Done): void {
    this.done = done;
    // before the connection is up, net buffers the write
    this.socket.write(request);
  }

  destroy(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buf = this.buf === null ? chunk : Buffer.concat([this.buf, chunk]);
    const buf = this.buf;
    const headEnd = buf.indexOf(HEADER_END);
    if (headEnd < 0) return;
    // "HTTP/1.1 200 OK": the status is at bytes 9–11
    const status = (buf[9] - 48) * 100 + (buf[10] - 48) * 10 + (buf[11] - 48);
    const head = buf.toString('latin1', 0, headEnd).toLowerCase();
    const bodyStart = headEnd + HEADER_END.length;
    let end: number;
    const m = /\r\ncontent-length:\s*(\d+)/.exec(head);
    if (m !== null) end = bodyStart + Number(m[1]);
    else if (head.includes('transfer-encoding: chunked')) {
      const at = buf.indexOf(CHUNKED_END, bodyStart - 2);
      if (at < 0) return;
      end = at + CHUNKED_END.length;
    } else end = bodyStart;
    if (buf.length < end) return;
    // one request in flight per connection: nothing may follow its response
    this.buf = null;
    const done = this.done;
    this.done = null;
    if (/\r\nconnection:\s*close/.test(head)) this.socket.destroy();
    else this.pool.released(this);
    done?.(Number.isFinite(status) ? status : 0);
  }

  private onClose(): void {
    if (this.gone) return;
    this.gone = true;
    const done = this.done;
    this.done = null;
    this.pool.closed(this);
    done?.(0);
  }
}
