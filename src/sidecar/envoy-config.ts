// The shape of envoyproxy/ratelimit's configuration once read: units, limits, the descriptor tree,
// and the problems found. Apart from the reader so the matcher and the limits need only these.
import { MAX_WINDOW_MS } from '../config.js';

/** A unit the service documents, its RateLimitResponse.RateLimit.Unit name and its window. */
export const UNITS: Readonly<Record<string, { unit: string; windowMs: number }>> = {
  second: { unit: 'SECOND', windowMs: 1000 },
  minute: { unit: 'MINUTE', windowMs: 60_000 },
  hour: { unit: 'HOUR', windowMs: 3_600_000 },
  day: { unit: 'DAY', windowMs: 86_400_000 },
  week: { unit: 'WEEK', windowMs: 604_800_000 },
  // the service's month is 30 days and its year 365: longer than a gateway's window can be
  month: { unit: 'MONTH', windowMs: 2_592_000_000 },
  year: { unit: 'YEAR', windowMs: 31_536_000_000 },
};

/** One `rate_limit` block, where it was written and what it limits. */
export interface YamlLimit {
  file: string;
  line: number;
  /** Where in its file: `descriptors[0].rate_limit`. */
  field: string;
  domain: string;
  /** The service's name for it (its stats key): `domain.key_value.subkey`. */
  fullKey: string;
  /** The descriptor path, `[key, value]` per level (value '' when none): its identity. */
  path: readonly (readonly [string, string])[];
  /** SECOND … YEAR; '' when unlimited. */
  unit: string;
  windowMs: number;
  requestsPerUnit: number;
  unlimited: boolean;
  /** `rate_limit.name`, '' when none. */
  name: string;
  replaces: readonly string[];
  shadowMode: boolean;
  detailedMetric: boolean;
}

/** One level of a domain's tree: the descriptors written at it. */
export interface DescriptorLevel {
  /** `key` + NUL + `value` → the descriptor with that exact value. */
  readonly exact: Map<string, DescriptorNode>;
  /** `key` → the descriptor with no value (each distinct value its own limit). */
  readonly byKey: Map<string, DescriptorNode>;
  /** Values ending in `*`, in file order: the key and the prefix before the `*`. */
  readonly wildcards: { key: string; prefix: string; node: DescriptorNode }[];
}

export interface DescriptorNode extends DescriptorLevel {
  readonly limit: YamlLimit | null;
  /** True when it has nested descriptors. */
  readonly nested: boolean;
}

export interface EnvoyRlsConfig {
  /** Each domain's top level. */
  readonly domains: ReadonlyMap<string, DescriptorLevel>;
  /** Every rate_limit block, in file order. */
  readonly limits: readonly YamlLimit[];
  /** The files read, in order. */
  readonly files: readonly string[];
}

export interface EnvoyConfigIssue {
  file: string;
  line: number;
  /** Where in the file: `descriptors[0].rate_limit.unit`. */
  field: string;
  message: string;
}

/** A bad file: every problem found, each with its file, line and field. */
export class EnvoyConfigError extends Error {
  constructor(readonly issues: readonly EnvoyConfigIssue[]) {
    super(issues.map((i) => `${i.file}:${i.line}: ${i.field}: ${i.message}`).join('\n'));
    this.name = 'EnvoyConfigError';
  }
}

/** Nesting depth: a request's descriptor has at most this many entries a limit can match (rules' bound). */
export const MAX_DEPTH = 8;

/** The units a limit may have here, as an error message lists them. */
export const USABLE_UNITS = Object.entries(UNITS)
  .filter(([, u]) => u.windowMs <= MAX_WINDOW_MS)
  .map(([n]) => n)
  .join(', ');
