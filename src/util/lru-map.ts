interface Node<V> {
  key: string;
  value: V;
  prev: Node<V> | null;
  next: Node<V> | null;
}

/**
 * A map whose iteration order is least recently used first: `use` moves a key to the end in O(1).
 *
 * Why not a Map with delete + set to move a key: V8's ordered hash table leaves a deleted entry in
 * its bucket's chain until the next rehash, and `set` of a key that is not there walks that chain. A
 * hot key moved on every request among many held keys grows its chain by one entry per request, so
 * each request cost grew with the requests since the last rehash (~30 µs per request with 10,000
 * keys held, measured on node 20). Here the order is a linked list and the Map is only read.
 *
 * Iteration visits the keys present when it reaches them; the loop body may delete the key it is at.
 */
export class LruMap<V> {
  private readonly index = new Map<string, Node<V>>();
  private head: Node<V> | null = null;
  private tail: Node<V> | null = null;

  get size(): number {
    return this.index.size;
  }

  has(key: string): boolean {
    return this.index.has(key);
  }

  /** The value, without counting this as a use. */
  get(key: string): V | undefined {
    return this.index.get(key)?.value;
  }

  /** The value, and the key becomes the most recently used. */
  use(key: string): V | undefined {
    const n = this.index.get(key);
    if (n === undefined) return undefined;
    if (n !== this.tail) {
      this.unlink(n);
      this.append(n);
    }
    return n.value;
  }

  /** Sets the value; a new key goes last (most recently used), a present one keeps its place. */
  set(key: string, value: V): void {
    const n = this.index.get(key);
    if (n !== undefined) {
      n.value = value;
      return;
    }
    const node: Node<V> = { key, value, prev: null, next: null };
    this.index.set(key, node);
    this.append(node);
  }

  delete(key: string): boolean {
    const n = this.index.get(key);
    if (n === undefined) return false;
    this.index.delete(key);
    this.unlink(n);
    return true;
  }

  *[Symbol.iterator](): IterableIterator<[string, V]> {
    let n = this.head;
    while (n !== null) {
      // read before yielding: the loop body may delete this key
      const next = n.next;
      yield [n.key, n.value];
      n = next;
    }
  }

  private unlink(n: Node<V>): void {
    if (n.prev === null) this.head = n.next;
    else n.prev.next = n.next;
    if (n.next === null) this.tail = n.prev;
    else n.next.prev = n.prev;
    n.prev = null;
    n.next = null;
  }

  private append(n: Node<V>): void {
    n.prev = this.tail;
    n.next = null;
    if (this.tail === null) this.head = n;
    else this.tail.next = n;
    this.tail = n;
  }
}
