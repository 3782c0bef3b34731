import calculateSlot from 'cluster-key-slot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../../src/config.js';
import { keyNames, MAX_VERBATIM_KEY_BYTES } from '../../../src/store/redis/key-names.js';
import { type SingleFixture, singleServer } from '../../support/redis-fixtures.js';

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

const HOSTILE = [
  '*',
  '?',
  '[a-z]',
  'user:*',
  '\\*',
  '{',
  '}',
  '{}',
  '{user}',
  '{user}:1',
  'a{b}c',
  'l:x',
  'm:x',
  'x\r\nPING\r\n',
  '\r\n',
  '\n',
  '\0',
  'a\0b',
  'a\0c',
  'ünïcödé',
  '🔥',
  '\uD83D',
  '\uDD25',
  '\uFFFD',
  'k'.repeat(2000),
  `${'k'.repeat(1999)}j`,
  'é'.repeat(100),
  'é'.repeat(101),
  ' ',
  'fl:',
];

describe('user keys are never interpreted', () => {
  const policy: Policy = { limit: 1000, windowMs: 60_000, windowKind: 'sliding' };

  it('hostile keys each keep their own count, without collisions', async () => {
    const store = fx.store({ clock: 'caller' });
    const entries = HOSTILE.map((key, i) => ({
      key,
      admits: Array.from({ length: i + 1 }, () => 10),
      read: true,
      release: false,
      ask: 0,
    }));
    await store.sync({ gatewayId: 'g', seq: 1, policy, leaseTtlMs: 1000, horizonMs: 100, entries }, 20);
    for (let i = 0; i < HOSTILE.length; i++) {
      const r = await store.logAdmit({ key: HOSTILE[i], policy, cost: 1 }, 30);
      expect(r.count, JSON.stringify(HOSTILE[i]).slice(0, 40)).toBe(i + 2);
    }
  });

  it('every Redis key name is distinct and is in the slot of the tag we derived', () => {
    const names = HOSTILE.flatMap((k) => {
      const n = keyNames('fl:', k, 'l', policy);
      expect(calculateSlot(n.log)).toBe(calculateSlot(n.tag));
      expect(calculateSlot(n.meta)).toBe(calculateSlot(n.tag));
      return [n.log, n.meta];
    });
    expect(new Set(names).size).toBe(names.length);
  });

  it(`keys over ${MAX_VERBATIM_KEY_BYTES} UTF-8 bytes are hashed into the name`, () => {
    const long = keyNames('fl:', 'k'.repeat(2000), 'l', policy);
    expect(long.log.length).toBeLessThan(100);
    expect(keyNames('fl:', 'k'.repeat(MAX_VERBATIM_KEY_BYTES), 'l', policy).log).toContain('k'.repeat(200));
  });

  it('the only braces Redis sees first are ours', () => {
    const n = keyNames('fl:', '{evil}', 'l', policy);
    expect(n.log.indexOf('{')).toBe(3);
    expect(n.log.slice(4, 4 + n.tag.length + 1)).toBe(`${n.tag}}`);
  });

  it('a prefix with braces is refused, naming the field', () => {
    expect(() => fx.store({ prefix: 'a{b}' })).toThrow(/^prefix:/);
  });

  it('the glob characters in a key do not leak into other keys', async () => {
    const store = fx.store({ clock: 'caller' });
    await store.logAdmit({ key: 'user:*', policy, cost: 5 }, 0);
    expect((await store.logAdmit({ key: 'user:1', policy, cost: 1 }, 1)).count).toBe(1);
    expect((await store.logAdmit({ key: 'user:*', policy, cost: 1 }, 2)).count).toBe(6);
  });
});
