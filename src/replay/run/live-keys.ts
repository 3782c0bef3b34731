/**
 * The engine's live keys by name (ReplayRun), in the memory store's table of our own (RecordTable)
 * in place of a Map: on a log of quiet keys nearly every other line is a key not live, and a Map's
 * miss walked a bucket chain whose every entry's key string sat cold in memory (a wait each); the
 * table's miss reads probed hashes side by side, and turns into a Map if keys chosen to collide make
 * a walk long. The keys are also listed in the order they entered, for the sweep and the report,
 * which read them in a Map's order (entry order: the figures depend on it through the leaderboard's
 * ties).
 */
import { RecordTable } from '../../store/memory/record-table.js';
import type { KeyStats } from './key-stats.js';

export class LiveKeys {
  private readonly table = new RecordTable<KeyStats>();
  /** The live keys in the order they entered. */
  private list: KeyStats[] = [];
  /**
   * Per key of `list`, its `lastSeen` when it entered: a bound below its `lastSeen` ever after, and
   * ascending along the list while keys enter in time order (`ordered`). A sweep passes by the keys
   * entered too late to be done without reading them (`sweep`'s `young`).
   */
  private entered = new Float64Array(1024);
  /** Whether every key entered at or after the one before it (else `young` is not asked). */
  private ordered = true;
  /** `get`'s last miss, the one key `add` may enter (a key is never listed twice). */
  private missed: string | null = null;

  get size(): number {
    return this.list.length;
  }

  /** Whether the table has become a Map (keys chosen to collide). */
  get isMap(): boolean {
    return this.table.isMap;
  }

  /** The live key named `key`, or undefined (then `add` may enter it, with no other call between). */
  get(key: string): KeyStats | undefined {
    const st = this.table.get(key);
    if (st === undefined) this.missed = key;
    return st;
  }

  /** Enters st, whose key `get` just missed. */
  add(st: KeyStats): void {
    if (st.key !== this.missed) throw new Error('LiveKeys.add: no miss to add at (get the key first)');
    this.missed = null;
    this.table.set(st);
    const i = this.list.length;
    if (i === this.entered.length) {
      const next = new Float64Array(2 * i);
      next.set(this.entered);
      this.entered = next;
    }
    const e = st.lastSeen;
    if (i > 0 && !(e >= this.entered[i - 1])) this.ordered = false;
    this.entered[i] = e;
    this.list.push(st);
  }

  /**
   * Retires every key `done` says so of, in entry order (`retire` called on each, after it is out);
   * the others keep their order. `young`, given a key's `lastSeen` when it entered, says when `done`
   * cannot hold for it or for any key entered after it (`done` is a key's lastSeen too old, and
   * lastSeen only grows): those are kept unread. On a log of quiet keys the sweep, every window, read
   * each live key's cold object; about half of them, the keys of the last window, are now passed by.
   */
  sweep(
    done: (st: KeyStats) => boolean,
    retire: (st: KeyStats) => void,
    young?: (entered: number) => boolean,
  ): void {
    const { list, entered } = this;
    const n = list.length;
    const cut = young !== undefined && this.ordered;
    let w = 0;
    let i = 0;
    for (; i < n; i++) {
      const e = entered[i];
      if (cut && young(e)) break;
      const st = list[i];
      if (done(st)) {
        this.table.remove(st);
        retire(st);
      } else {
        entered[w] = e;
        list[w++] = st;
      }
    }
    if (w < i) {
      entered.copyWithin(w, i, n);
      list.copyWithin(w, i, n);
    }
    w += n - i;
    list.length = w;
    this.missed = null;
  }

  /** The live keys in entry order. */
  values(): readonly KeyStats[] {
    return this.list;
  }
}
