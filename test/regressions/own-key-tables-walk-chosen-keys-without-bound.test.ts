/**
 * Regression: the memory store's records (RecordTable) and the replay's live keys (LiveKeys) were
 * open-addressed tables over an unseeded hash (FNV-1a), with no bound on a walk. Keys are a client's
 * (an API key header, a log's keys): keys chosen to share a home slot, or to fill a run of neighbouring
 * slots, made every lookup, insert, delete or resize walk all of them — quadratic work in the keys
 * sent, on a store whose work must never follow what a client sends. A walk past MAX_WALK now turns
 * the table into a Map (hashed with the process's random seed); keys not chosen so never trip it.
 */
import { describe, expect, it } from 'vitest';
import { KeyStats } from '../../src/replay/run/key-stats.js';
import { LiveKeys } from '../../src/replay/run/live-keys.js';
import { RecordTable } from '../../src/store/memory/record-table.js';
import { keyHash } from '../../src/util/key-hash.js';

/** `n` keys whose hashes' low 12 bits are `home(i)`: what an attacker finds offline in a second. */
function chosenKeys(n: number, home: (i: number) => number, prefix = 'attacker'): string[] {
  const want = new Map<number, number>();
  for (let i = 0; i < n; i++) want.set(home(i) & 0xfff, (want.get(home(i) & 0xfff) ?? 0) + 1);
  const out: string[] = [];
  for (let j = 0; out.length < n; j++) {
    const key = `${prefix}-${j}`;
    const low = keyHash(key) & 0xfff;
    const left = want.get(low) ?? 0;
    if (left > 0) {
      want.set(low, left - 1);
      out.push(key);
    }
  }
  return out;
}

/** Past any walk MAX_WALK (64) allows. */
const N = 256;
const SAME_HOME = chosenKeys(N, () => 77);
/** Homes one after another: each insert walks one slot, but the run they make is N long. */
const ONE_RUN = chosenKeys(N, (i) => 1000 + i);
const ADDRESSES = Array.from(
  { length: 200_000 },
  (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
);

interface Item {
  key: string;
  hash: number;
}

/** Sets every key, checks each is found, removes every other one, checks against a Map. */
function exerciseRecords(keys: readonly string[]): RecordTable<Item> {
  const table = new RecordTable<Item>();
  const model = new Map<string, Item>();
  for (const key of keys) {
    const item = { key, hash: 0 };
    table.set(item);
    model.set(key, item);
  }
  let wrong = 0;
  for (const [key, item] of model) if (table.get(key) !== item) wrong++;
  keys.forEach((key, i) => {
    if (i % 2 === 0) return;
    table.remove(model.get(key)!);
    model.delete(key);
  });
  for (const key of keys) if (table.get(key) !== model.get(key)) wrong++;
  for (const item of model.values()) if (!table.holds(item)) wrong++;
  expect(wrong).toBe(0);
  expect(table.size).toBe(model.size);
  expect(new Set(table.keys())).toEqual(new Set(model.keys()));
  return table;
}

/** Enters every key as the engine does (get, then add on a miss); `probe` then looked up. */
function enterLive(keys: readonly string[], probe?: string): LiveKeys {
  const live = new LiveKeys();
  let wrong = 0;
  keys.forEach((key, t) => {
    if (live.get(key) !== undefined) wrong++;
    live.add(new KeyStats(key, 1, t));
  });
  if (probe !== undefined && live.get(probe) !== undefined) wrong++;
  for (const key of keys) if (live.get(key)?.key !== key) wrong++;
  expect(wrong).toBe(0);
  return live;
}

/** Sweeps every other key out (entered at odd t), checks what is left and its order. */
function sweepLive(live: LiveKeys, keys: readonly string[]): void {
  live.sweep(
    (st) => st.lastSeen % 2 === 1,
    () => {},
  );
  let wrong = 0;
  keys.forEach((key, t) => {
    if (live.get(key)?.key !== (t % 2 === 1 ? undefined : key)) wrong++;
  });
  expect(wrong).toBe(0);
  expect(live.values().map((st) => st.key)).toEqual(keys.filter((_, t) => t % 2 === 0));
}

describe('own key tables under keys chosen to collide', () => {
  it('the memory store’s records become a Map, and hold what a Map would', () => {
    expect(exerciseRecords(SAME_HOME).isMap).toBe(true);
    expect(exerciseRecords(ONE_RUN).isMap).toBe(true);
  });

  it('the memory store’s records become a Map when a shrink makes the walk long', () => {
    // two homes apart in 2,048 slots and one in 1,024: each set walks under 50, the shrink 99
    const chosen = chosenKeys(100, (i) => (i < 50 ? 77 : 77 + 1024));
    const others = Array.from({ length: 1000 }, (_, i) => `other-${i}`);
    const table = new RecordTable<Item>();
    const model = new Map<string, Item>();
    for (const key of [...others, ...chosen]) {
      const item = { key, hash: 0 };
      table.set(item);
      model.set(key, item);
    }
    expect(table.isMap).toBe(false);
    for (const key of others.slice(0, 900)) {
      table.remove(model.get(key)!);
      model.delete(key);
    }
    expect(table.isMap).toBe(true);
    let wrong = 0;
    for (const key of [...others, ...chosen]) if (table.get(key) !== model.get(key)) wrong++;
    expect(wrong).toBe(0);
    expect(table.size).toBe(model.size);
  });

  it('the replay’s live keys become a Map, in entry order still', () => {
    const same = enterLive(SAME_HOME);
    expect(same.isMap).toBe(true);
    sweepLive(same, SAME_HOME);
    // a run of homes one after another costs nothing until a miss lands at its start
    const run = enterLive(ONE_RUN, chosenKeys(1, () => 1000, 'newcomer')[0]);
    expect(run.isMap).toBe(true);
    sweepLive(run, ONE_RUN);
  });

  it('keys not chosen (200,000 addresses) keep both tables their own', () => {
    expect(exerciseRecords(ADDRESSES).isMap).toBe(false);
    const live = enterLive(ADDRESSES);
    sweepLive(live, ADDRESSES);
    expect(live.isMap).toBe(false);
  });
});
