import calculateSlot from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../../src/config.js';
import {
  groupTag,
  keyGroup,
  keyNames,
  MAX_KEY_GROUPS,
  requireKeyGroups,
} from '../../../src/store/redis/key-names.js';
import { DEFAULT_CLUSTER_KEY_GROUPS, resolveRedisStoreOptions } from '../../../src/store/redis/options.js';

/**
 * Decision 0011: a key's group and its group's hash tag are part of the key-name format. Every
 * process and every version must name a key alike, or two gateways count one key apart: these
 * tables are fixed, and a change to them is a change of format (a new decision, an upgrade note).
 */
const policy: Policy = { limit: 10, windowMs: 60_000, windowKind: 'sliding', name: 'free' };

/** key → [per-key tag, group of 256, its tag, group of 1000, its tag] */
const TABLE: [string, string, number, string, number, string][] = [
  ['user-42', 'aa29d335', 53, '53.372', 765, '765.900'],
  ['user:0', 'c0f1ebe6', 230, '230.202', 38, '38.28'],
  ['user:1', 'afb58d27', 39, '39.67', 951, '951.1582'],
  ['ünïcödé', '6feefe22', 34, '34.323', 602, '602.1278'],
  ['🔥', '8b6f4d75', 117, '117.173', 349, '349.2287'],
  ['{user}', '1eb9e604', 4, '4.75', 524, '524.456'],
  ['k'.repeat(300), '327d1292', 146, '146.4', 554, '554.1820'],
  ['\uD83D', 'c960f09c', 156, '156.154', 468, '468.430'],
  ['fl:', 'f782c482', 130, '130.412', 338, '338.749'],
];

describe('key groups (decision 0011)', () => {
  it('a key keeps its tag and its group: a fixed table', () => {
    for (const [key, own, g256, t256, g1000, t1000] of TABLE) {
      const label = JSON.stringify(key).slice(0, 20);
      expect(keyNames('fl:', key, 'l', policy).tag, label).toBe(own);
      expect(keyGroup(key, 256), label).toBe(g256);
      expect(groupTag(g256, 256), label).toBe(t256);
      expect(keyNames('fl:', key, 'l', policy, 256).tag, label).toBe(t256);
      expect(keyGroup(key, 1000), label).toBe(g1000);
      expect(groupTag(g1000, 1000), label).toBe(t1000);
    }
    expect(keyNames('fl:', 'user-42', 'l', policy, 256)).toEqual({
      log: 'fl:{53.372}l[free=10/60000s]:user-42',
      meta: 'fl:{53.372}m[free=10/60000s]:user-42',
      tag: '53.372',
    });
    // one server keeps the names of before
    expect(keyNames('fl:', 'user-42', 'l', policy).log).toBe('fl:{aa29d335}l[free=10/60000s]:user-42');
  });

  it("a key's group is its per-key tag, as a number, mod N", () => {
    for (const [key, own] of TABLE)
      for (const n of [1, 2, 3, 7, 256, 1000, MAX_KEY_GROUPS])
        expect(keyGroup(key, n)).toBe(Number.parseInt(own, 16) % n);
  });

  it("each group's tag lies in its own 1/N of the slots, in order", () => {
    for (const n of [1, 2, 3, 10, 256, 1000, MAX_KEY_GROUPS]) {
      let last = -1;
      for (let g = 0; g < n; g++) {
        const s = calculateSlot(groupTag(g, n));
        expect(s).toBeGreaterThanOrEqual(Math.floor((g * 16384) / n));
        expect(s).toBeLessThan(Math.floor(((g + 1) * 16384) / n));
        expect(s).toBeGreaterThan(last);
        last = s;
      }
    }
  });

  it('masters serving even slot ranges serve even shares of the groups and of the keys', () => {
    const N = 100_000;
    const groupOf = Array.from({ length: N }, (_, i) => keyGroup(`user:${i}`, 256));
    // redis-cli --cluster create's ranges for 3 and for 5 masters
    for (const masters of [3, 5]) {
      const per = 16384 / masters;
      const ownerOf = (slot: number) => Math.min(masters - 1, Math.floor(slot / per));
      const groups = new Array<number>(masters).fill(0);
      for (let g = 0; g < DEFAULT_CLUSTER_KEY_GROUPS; g++) groups[ownerOf(calculateSlot(groupTag(g, 256)))]++;
      expect(Math.max(...groups) - Math.min(...groups)).toBeLessThanOrEqual(1);
      const keys = new Array<number>(masters).fill(0);
      const perGroup = new Array<number>(256).fill(0);
      for (const g of groupOf) {
        perGroup[g]++;
        keys[ownerOf(calculateSlot(groupTag(g, 256)))]++;
      }
      for (const k of keys) expect(Math.abs(k / (N / masters) - 1)).toBeLessThan(0.03);
      // 390.6 keys per group on average, sd ~20: every group within 25 %
      for (const k of perGroup) expect(Math.abs(k / (N / 256) - 1)).toBeLessThan(0.25);
    }
  });

  it('names stay distinct and in their tag’s slot with groups', () => {
    const names = TABLE.flatMap(([key]) => {
      const n = keyNames('fl:', key, 'l', policy, 256);
      expect(calculateSlot(n.log)).toBe(calculateSlot(n.tag));
      expect(calculateSlot(n.meta)).toBe(calculateSlot(n.tag));
      expect(n.log.indexOf('{')).toBe(3);
      return [n.log, n.meta];
    });
    expect(new Set(names).size).toBe(names.length);
  });

  it('the default follows the client: groups on a Cluster, names as before on one server', () => {
    expect(resolveRedisStoreOptions({}, true).keyGroups).toBe(DEFAULT_CLUSTER_KEY_GROUPS);
    expect(resolveRedisStoreOptions({}, false).keyGroups).toBe('per-key');
    expect(resolveRedisStoreOptions({ keyGroups: 'per-key' }, true).keyGroups).toBe('per-key');
    expect(resolveRedisStoreOptions({ keyGroups: 64 }, false).keyGroups).toBe(64);
  });

  it('a bad keyGroups is refused, naming the field', () => {
    for (const bad of [0, -1, 1.5, MAX_KEY_GROUPS + 1, Number.NaN, '256', 'per key', null, {}])
      expect(() => requireKeyGroups(bad), String(bad)).toThrow(/^keyGroups: /);
  });
});
