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
    this.list.push(st);
  }

  /**
   * Retires every key `done` says so of, in entry order (`retire` called on each, after it is out);
   * the others keep their order.
   */
  sweep(done: (st: KeyStats) => boolean, retire: (st: KeyStats) => void): void {
    const list = this.list;
    let w = 0;
    for (let i = 0; i < list.length; i++) {
      const st = list[i];
      if (done(st)) {
        this.table.remove(st);
        retire(st);
      } else list[w++] = st;
    }
    list.length = w;
    this.missed = null;
  }

  /** The live keys in entry order. */
  values(): readonly KeyStats[] {
    return this.list;
  }
}
