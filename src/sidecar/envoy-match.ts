import { isUtf8 } from 'node:buffer';
import { MAX_WINDOW_MS } from '../config.js';
import {
  type DescriptorLevel,
  type DescriptorNode,
  type EnvoyRlsConfig,
  UNITS,
  type YamlLimit,
} from './envoy-yaml.js';

/**
 * Which limit of an envoyproxy/ratelimit configuration a descriptor is held to, by that service's
 * rules (README "Examples" 2 to 9, config_impl.go GetLimit). Pure.
 *
 * - The entries are matched level by level from the domain's top: at each level the descriptor with
 *   the entry's key and value, else one whose value ends in `*` and is a prefix of the entry's value
 *   (file order), else the one with the key and no value (any value: each distinct value its own limit).
 * - The limit is that of the level the last entry matched: a descriptor with more or fewer entries
 *   than the configuration's depth is not limited (Example 4).
 * - Matching stops at a level with no nested descriptors.
 */

/** An entry as the server decodes it: bytes, or text. */
export interface MatchEntry {
  key: string | Uint8Array;
  value: string | Uint8Array;
}

function text(v: string | Uint8Array): string | null {
  if (typeof v === 'string') return v;
  return isUtf8(v) ? Buffer.from(v.buffer, v.byteOffset, v.length).toString('utf8') : null;
}

function step(level: DescriptorLevel, key: string, value: string | null): DescriptorNode | undefined {
  // a value that is not UTF-8 equals no configured value and has no configured prefix: only key-only matches
  if (value !== null) {
    const exact = level.exact.get(`${key}\u0000${value}`);
    if (exact !== undefined) return exact;
    for (const w of level.wildcards) if (w.key === key && value.startsWith(w.prefix)) return w.node;
  }
  return level.byKey.get(key);
}

/** The limit a descriptor's entries match in `domain`, or null (not limited). */
export function findLimit(
  config: EnvoyRlsConfig,
  domain: string,
  entries: readonly MatchEntry[],
): YamlLimit | null {
  let level: DescriptorLevel | undefined = config.domains.get(domain);
  if (level === undefined) return null;
  let found: YamlLimit | null = null;
  for (let i = 0; i < entries.length; i++) {
    const key = text(entries[i].key);
    if (key === null) return null;
    const next: DescriptorNode | undefined = step(level, key, text(entries[i].value));
    if (next === undefined) break;
    if (next.limit !== null && i === entries.length - 1) found = next.limit;
    if (!next.nested) break;
    level = next;
  }
  return found;
}

/**
 * How one descriptor of a request is held: by nothing, an unlimited limit, a limit of the files, the
 * descriptor's own `limit` override, or an override that cannot be one (`problem`: INVALID_ARGUMENT).
 */
export type Held =
  | { kind: 'none' }
  | { kind: 'unlimited'; limit: YamlLimit }
  | { kind: 'limit'; limit: YamlLimit }
  | { kind: 'override'; limit: YamlLimit }
  | { kind: 'bad'; problem: string };

/** Envoy's RateLimitOverride as the server decodes it (enums by name); null or absent when unset. */
export interface LimitOverride {
  requests_per_unit?: number;
  unit?: string | number;
}

/**
 * A descriptor's `limit` override as a limit of its own (the service's GetLimit: for a known domain it
 * takes precedence over the files; no name, no replaces, never in shadow mode). Its path is empty, so
 * every override of one domain, unit and rate shares one policy (limitPolicyName), and its metrics key is
 * the domain, rate and unit, not the descriptor's values (bounded).
 */
function overrideLimit(domain: string, o: LimitOverride, at: string): YamlLimit | string {
  const rpu = Number(o.requests_per_unit ?? 0);
  const name = typeof o.unit === 'string' ? o.unit.toLowerCase() : '';
  const u = UNITS[name];
  if (u === undefined || u.windowMs > MAX_WINDOW_MS) {
    return `${at}.unit must be SECOND, MINUTE, HOUR, DAY or WEEK, got ${JSON.stringify(o.unit ?? null)}`;
  }
  return {
    file: '(request)',
    line: 0,
    field: at,
    domain,
    fullKey: `${domain}.limit_override_${rpu}_per_${name}`,
    path: [],
    unit: u.unit,
    windowMs: u.windowMs,
    requestsPerUnit: rpu,
    unlimited: false,
    name: '',
    replaces: [],
    shadowMode: false,
    detailedMetric: false,
  };
}

/**
 * Each descriptor's limit, as the service decides what to check: a limit whose `name` another
 * matched limit `replaces` is dropped (not checked, not counted: Example 7), and an unlimited one is
 * answered OK without counting (Example 5).
 */
export function limitsToCheck(
  config: EnvoyRlsConfig,
  domain: string,
  descriptors: readonly { entries: readonly MatchEntry[]; limit?: unknown }[],
): Held[] {
  const known = config.domains.has(domain);
  const found = descriptors.map((d, i): YamlLimit | string | null => {
    const o = d.limit as LimitOverride | null | undefined;
    if (known && o !== null && o !== undefined) return overrideLimit(domain, o, `descriptors[${i}].limit`);
    return findLimit(config, domain, d.entries ?? []);
  });
  const replaced = new Set<string>();
  for (const l of found) if (l !== null && typeof l !== 'string') for (const r of l.replaces) replaced.add(r);
  return found.map((l): Held => {
    if (typeof l === 'string') return { kind: 'bad', problem: l };
    if (l === null || (l.name !== '' && replaced.has(l.name))) return { kind: 'none' };
    if (l.path.length === 0) return { kind: 'override', limit: l };
    return l.unlimited ? { kind: 'unlimited', limit: l } : { kind: 'limit', limit: l };
  });
}
