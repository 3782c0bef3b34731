/** What a waiting request's `retry` returns when it still finds no slot and may ask (or wait) again. */
export const AGAIN = Symbol('again');

/** A request for a key that found no slot while an ask for that key was in flight (leases-ask). */
export interface AskWaiter<D> {
  /** Sends the key's ask for this request and decides on its reply (see AskCoalescer.open). */
  ask(): Promise<D>;
  /** After the awaited ask settled: this request's decision, or AGAIN to ask or wait once more. */
  retry(): D | typeof AGAIN;
}

/**
 * leases-ask: one ask in flight per key. A request that finds no slot while an ask for its key is out
 * waits for that ask and decides on what it brought, instead of asking too: asking again would cost a
 * round trip each and ask for the same slots twice. The waiter says, after each ask, whether it is
 * decided or should go again (it keeps its own time budget); the coalescer only knows the asks in
 * flight and who waits on them.
 */
export class AskCoalescer {
  /** The ask in flight per key; settles once its own request has applied the reply. */
  private readonly asks = new Map<string, Promise<void>>();
  /** Requests that waited on another request's ask instead of asking. */
  coalesced = 0;

  /** An ask for `key` is in flight (its key must not be evicted meanwhile). */
  has(key: string): boolean {
    return this.asks.has(key);
  }

  /** The ask in flight for `key`, if any. */
  inFlight(key: string): Promise<void> | undefined {
    return this.asks.get(key);
  }

  /**
   * Records an ask for `key` going out now; returns the function to call once its request has applied
   * the reply (or failed): the waiters run after that.
   */
  open(key: string): () => void {
    let settle = () => {};
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    this.asks.set(key, settled);
    return () => {
      if (this.asks.get(key) === settled) this.asks.delete(key);
      settle();
    };
  }

  /**
   * Waits on the ask in flight (`asking`), then lets the waiter decide; if it goes again, it waits on
   * the key's next ask in flight, or asks itself if there is none.
   */
  async follow<D>(key: string, asking: Promise<void>, waiter: AskWaiter<D>): Promise<D> {
    this.coalesced++;
    await asking;
    const d = waiter.retry();
    if (d !== AGAIN) return d;
    const next = this.asks.get(key);
    return next === undefined ? waiter.ask() : this.follow(key, next, waiter);
  }
}
