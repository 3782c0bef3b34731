// findLimit decides as a plain port of envoyproxy/ratelimit's GetLimit (src/config/config_impl.go: one
// map per level keyed `key` or `key_value`, the exact key, then a wildcard, then the key alone; the
// limit only where the last entry lands; descending only into nested descriptors), on random trees and
// requests. Wildcards are taken per level, as the README's example 9 documents them.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { findLimit } from '../../src/sidecar/envoy-match.js';
import { parseEnvoyConfig } from '../../src/sidecar/envoy-yaml.js';
import { seeded } from '../support/fc-seed.js';

interface Desc {
  key: string;
  value: string;
  limit: boolean;
  children: Desc[];
}

const KEYS = ['a', 'b', 'c'];
const VALUES = ['', '', 'x', 'y', 'xy', 'x*', '*'];

const desc: fc.Memo<Desc> = fc.memo((n) =>
  fc.record({
    key: fc.constantFrom(...KEYS),
    value: fc.constantFrom(...VALUES),
    limit: fc.boolean(),
    children: n > 1 ? fc.array(desc(n - 1), { maxLength: 3 }) : fc.constant([]),
  }),
);

/** One descriptor per `key` / `key_value` at a level, as the service requires. */
function dedupe(ds: Desc[]): Desc[] {
  const seen = new Set<string>();
  return ds
    .filter((d) => {
      const k = d.value === '' ? d.key : `${d.key}_${d.value}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .map((d) => ({ ...d, children: dedupe(d.children) }));
}

function yaml(ds: Desc[], indent: string): string {
  return ds
    .map((d) => {
      let s = `${indent}- key: ${d.key}\n`;
      if (d.value !== '') s += `${indent}  value: "${d.value}"\n`;
      if (d.limit) s += `${indent}  rate_limit: { unit: minute, requests_per_unit: 5 }\n`;
      if (d.children.length > 0) s += `${indent}  descriptors:\n${yaml(d.children, `${indent}    `)}`;
      return s;
    })
    .join('');
}

/** The service's structure: per level a map by final key, and the wildcard keys in file order. */
interface RefLevel {
  map: Map<string, { limit: string | null; next: RefLevel }>;
  wildcards: string[];
}
function refLevel(ds: Desc[], parent: string): RefLevel {
  const level: RefLevel = { map: new Map(), wildcards: [] };
  for (const d of ds) {
    const finalKey = d.value === '' ? d.key : `${d.key}_${d.value}`;
    const full = `${parent}.${finalKey}`;
    level.map.set(finalKey, { limit: d.limit ? full : null, next: refLevel(d.children, full) });
    if (finalKey.endsWith('*')) level.wildcards.push(finalKey);
  }
  return level;
}
function refGetLimit(root: RefLevel, entries: [string, string][]): string | null {
  let level = root;
  let found: string | null = null;
  for (let i = 0; i < entries.length; i++) {
    const [k, v] = entries[i];
    let next = level.map.get(`${k}_${v}`);
    if (next === undefined) {
      const w = level.wildcards.find((x) => `${k}_${v}`.startsWith(x.slice(0, -1)));
      if (w !== undefined) next = level.map.get(w);
    }
    next ??= level.map.get(k);
    if (next?.limit != null && i === entries.length - 1) found = next.limit;
    if (next !== undefined && next.next.map.size > 0) level = next.next;
    else break;
  }
  return found;
}

describe('findLimit matches as envoyproxy/ratelimit’s GetLimit', () => {
  it('on random trees and descriptors', () => {
    const entry = fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom('x', 'y', 'xy', 'xyz', 'z', '*', 'x*'));
    fc.assert(
      fc.property(
        fc.array(desc(4), { minLength: 1, maxLength: 5 }),
        fc.array(fc.array(entry, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 8 }),
        (raw, requests) => {
          const tree = dedupe(raw);
          const config = parseEnvoyConfig([
            { name: 'p.yaml', text: `domain: d\ndescriptors:\n${yaml(tree, '  ')}` },
          ]);
          const ref = refLevel(tree, 'd');
          for (const es of requests) {
            const mine =
              findLimit(
                config,
                'd',
                es.map(([key, value]) => ({ key, value })),
              )?.fullKey ?? null;
            if (mine !== refGetLimit(ref, es)) return false;
          }
          return true;
        },
      ),
      seeded({ numRuns: 300 }),
    );
  });
});
