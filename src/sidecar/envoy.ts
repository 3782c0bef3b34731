import { isUtf8 } from 'node:buffer';
import { keyProblem } from '../config.js';
import type { Decision } from '../gateway/decision.js';
import { addressKey, DEFAULT_IPV6_SUBNET } from '../http/client-address.js';
import { bindingDecision, type Decider, type PolicyDecider } from './decider.js';
import type { DescriptorRule } from './options.js';

/**
 * Envoy's ShouldRateLimit, as @grpc/proto-loader decodes it (keepCase, longs as strings, enums as
 * names): what this module reads. Pure: a request in, a plan of decisions out, and a response from
 * the decisions; the gRPC server (grpc-server.ts) only wires it.
 */
export interface RlsEntry {
  /** The server decodes both as bytes (a Buffer: rls_bytes.proto); a string is taken as its text. */
  key: string | Uint8Array;
  value: string | Uint8Array;
}
export interface RlsDescriptor {
  entries: RlsEntry[];
  limit?: unknown;
  /** google.protobuf.UInt64Value: `{ value: '5' }` when set, null when not. */
  hits_addend?: { value: string | number } | null;
  /** Newer Envoy releases: the descriptor's hits are a refund (taken back), not counted. */
  is_negative_hits?: boolean;
}
export interface RlsRequest {
  domain: string;
  descriptors: RlsDescriptor[];
  hits_addend: number;
}

export type Code = 'OK' | 'OVER_LIMIT';

export interface RlsDescriptorStatus {
  code: Code;
  current_limit?: { name: string; requests_per_unit: number; unit: string };
  limit_remaining?: number;
  duration_until_reset?: { seconds: number; nanos: number };
}

export interface RlsResponse {
  overall_code: Code;
  statuses: RlsDescriptorStatus[];
  response_headers_to_add: { key: string; value: string }[];
}

/** A ShouldRateLimit answered: the response, and how the sidecar's request counter counts it. */
export interface RlsAnswered {
  response: RlsResponse;
  outcome: 'allowed' | 'limited' | 'skipped';
}

/** A request's answer (now, or once the store has answered), or what is wrong with it (INVALID_ARGUMENT). */
export type RlsAnswer =
  | { ok: false; problem: string }
  | { ok: true; answered: RlsAnswered | Promise<RlsAnswered> };

export type RlsAnswerer = (req: RlsRequest) => RlsAnswer;

/**
 * A descriptor no rule limits, or one held to the rule's `policy` under `key` at `cost`; `refund`: its
 * hits are taken back (is_negative_hits), not counted.
 */
export type PlanItem =
  | { limited: false }
  | { limited: true; policy: string; key: string; cost: number; refund: boolean };

/** A request's plan, or what is wrong with it (answered INVALID_ARGUMENT: the client's error). */
export type Plan = { ok: true; items: PlanItem[] } | { ok: false; problem: string };

export interface EnvoyMapping {
  domain: string;
  /** Each rule: a descriptor's entry keys, in order, and the policy it is held to. */
  descriptors: readonly DescriptorRule[];
  maxDescriptors: number;
  /** An entry value that is an IPv6 address is keyed by this prefix of it (false: alone). @default 56 */
  ipv6Subnet?: number | false;
}

/** `|` and `\` written with a backslash in front: a key part that cannot end its entry early. */
function escapeKeyPart(text: string): string {
  return text.replace(/[\\|]/g, (c) => `\\${c}`);
}

/** The length of the well-formed UTF-8 sequence at b[i] (Unicode's table 3-7), or 0 if it is not one. */
function utf8Length(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c < 0x80) return 1;
  const cont = (j: number, lo = 0x80, hi = 0xbf) => j < b.length && b[j] >= lo && b[j] <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(i + 1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const lo = c === 0xe0 ? 0xa0 : 0x80;
    const hi = c === 0xed ? 0x9f : 0xbf;
    return cont(i + 1, lo, hi) && cont(i + 2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const lo = c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xf4 ? 0x8f : 0xbf;
    return cont(i + 1, lo, hi) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

function utf8(b: Uint8Array, from = 0, to = b.length): string {
  return Buffer.from(b.buffer, b.byteOffset + from, to - from).toString('utf8');
}

/**
 * An entry's value as a key part, losslessly: valid UTF-8 as its text (an IPv6 address as its
 * `ipv6Subnet` network), escaped; otherwise each ill-formed byte as `\xHH` among the escaped text of
 * the well-formed runs. A valid value's key part never holds a lone backslash before `x` (a backslash
 * is written doubled), so two different byte strings never make one key part (issue 32: a lossy
 * decode made "a\xff", "a\xfe" and "a\uFFFD" one).
 */
function valuePart(v: string | Uint8Array, ipv6Subnet: number | false): string {
  if (typeof v === 'string') return escapeKeyPart(addressKey(v, ipv6Subnet));
  if (isUtf8(v)) return escapeKeyPart(addressKey(utf8(v), ipv6Subnet));
  let out = '';
  let run = 0;
  for (let i = 0; i < v.length; ) {
    const n = utf8Length(v, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += `${escapeKeyPart(utf8(v, run, i))}\\x${v[i].toString(16).padStart(2, '0')}`;
    run = ++i;
  }
  return out + escapeKeyPart(utf8(v, run));
}

/** An entry's key as text: a string as it is, bytes as UTF-8; null for bytes that are not UTF-8 (no rule's key). */
function entryKey(k: string | Uint8Array): string | null {
  if (typeof k === 'string') return k;
  return isUtf8(k) ? utf8(k) : null;
}

/**
 * Entry values joined so that two different descriptors never make one key: `|` and `\` escaped, bytes
 * that are not UTF-8 as `\xHH` (valuePart). A value that is an IPv6 address (Envoy's `remote_address`)
 * is keyed by its `ipv6Subnet` network.
 */
export function keyOf(keys: readonly string[], entries: RlsEntry[], ipv6Subnet: number | false): string {
  let k = '';
  for (let i = 0; i < entries.length; i++) {
    if (i > 0) k += '|';
    k += `${keys[i]}=${valuePart(entries[i].value, ipv6Subnet)}`;
  }
  return k;
}

function matches(entries: RlsEntry[], rule: DescriptorRule): boolean {
  const keys = rule.keys;
  if (entries.length !== keys.length) return false;
  for (let i = 0; i < keys.length; i++) if (entryKey(entries[i].key) !== keys[i]) return false;
  return true;
}

/**
 * hits_addend: the descriptor's own when set, else the request's; 0 counts as 1 (as Envoy's reference
 * service does). A value past 2^53 is kept as 2^53 − 1: over any limit, so refused without the store.
 */
export function costOf(d: RlsDescriptor, requestHits: number): number {
  const own = d.hits_addend?.value;
  const raw = own === undefined || own === null ? requestHits : Number(own);
  if (!Number.isFinite(raw) || raw < 1) return 1;
  return Math.min(Math.floor(raw), Number.MAX_SAFE_INTEGER);
}

/**
 * What is wrong with a request whatever the configuration, or null: an empty domain or no descriptors
 * (as Envoy's reference service), more descriptors than maxDescriptors (the work one request causes is
 * bounded), a descriptor without entries or an entry with an empty key or value.
 */
export function requestProblem(req: RlsRequest, maxDescriptors: number): string | null {
  if (typeof req.domain !== 'string' || req.domain === '') return 'domain must not be empty';
  const ds = req.descriptors ?? [];
  if (ds.length === 0) return 'descriptors must not be empty';
  if (ds.length > maxDescriptors)
    return `${ds.length} descriptors; at most ${maxDescriptors} are taken (sidecar.maxDescriptors)`;
  for (let i = 0; i < ds.length; i++) {
    const entries = ds[i].entries ?? [];
    if (entries.length === 0) return `descriptors[${i}] has no entries`;
    for (const e of entries) {
      if (e.key.length === 0 || e.value.length === 0)
        return `descriptors[${i}]: an entry has an empty key or value`;
    }
  }
  return null;
}

/**
 * Which descriptors are limited, under which key and at which cost. As Envoy's reference service:
 * an empty domain or no descriptors is an error; a domain other than the configured one, or a
 * descriptor no rule matches, is not limited (OK, no current_limit). More descriptors than
 * maxDescriptors, an entry with an empty key or value, or a key longer than 1,024 characters is an error.
 */
export function planRequest(req: RlsRequest, m: EnvoyMapping): Plan {
  const problem = requestProblem(req, m.maxDescriptors);
  if (problem !== null) return { ok: false, problem };
  const ds = req.descriptors;
  const items: PlanItem[] = [];
  for (let i = 0; i < ds.length; i++) {
    const entries = ds[i].entries;
    const rule = req.domain === m.domain ? m.descriptors.find((r) => matches(entries, r)) : undefined;
    if (rule === undefined) {
      items.push({ limited: false });
      continue;
    }
    // the rule's keys are the entries' (matches): the key names them as the configuration does
    const key = keyOf(rule.keys, entries, m.ipv6Subnet ?? DEFAULT_IPV6_SUBNET);
    const kp = keyProblem(key);
    if (kp !== null) return { ok: false, problem: `descriptors[${i}]: ${kp}` };
    const cost = costOf(ds[i], req.hits_addend ?? 0);
    items.push({ limited: true, policy: rule.policy, key, cost, refund: ds[i].is_negative_hits === true });
  }
  return { ok: true, items };
}

/** The RateLimit unit of a window of W ms: SECOND, MINUTE, HOUR, DAY or WEEK when W is exactly one, else UNKNOWN. */
export function unitOf(windowMs: number): string {
  switch (windowMs) {
    case 1000:
      return 'SECOND';
    case 60_000:
      return 'MINUTE';
    case 3_600_000:
      return 'HOUR';
    case 86_400_000:
      return 'DAY';
    case 604_800_000:
      return 'WEEK';
    default:
      return 'UNKNOWN';
  }
}

export const UINT32_MAX = 4_294_967_295;

export function duration(ms: number): { seconds: number; nanos: number } {
  const t = Number.isFinite(ms) && ms > 0 ? ms : 0;
  const seconds = Math.floor(t / 1000);
  return { seconds, nanos: Math.round((t - seconds * 1000) * 1e6) };
}

/** A policy's `current_limit`: its name, L and W's unit. */
function currentLimit(p: PolicyDecider): NonNullable<RlsDescriptorStatus['current_limit']> {
  const policy = p.gateway.options.policy;
  return {
    name: p.policyName,
    requests_per_unit: Math.min(policy.limit, UINT32_MAX),
    unit: unitOf(policy.windowMs),
  };
}

/**
 * The response for a plan's decisions (`decisions[i]` for each limited item, in order, null for the
 * others): OVER_LIMIT if any descriptor is; each limited descriptor's limit (its policy's), remaining
 * and time until a retry can succeed (a rejection) or the window frees a slot (an admit); and the
 * RateLimit headers of the decision that binds, shaped by its policy — the first rejection, else the
 * admit with the fewest remaining.
 */
export function buildResponse(
  items: PlanItem[],
  decisions: (Decision | null)[],
  decider: Decider,
): RlsResponse {
  const statuses: RlsDescriptorStatus[] = [];
  const limited: (Decision | null)[] = [];
  const policies: (PolicyDecider | undefined)[] = [];
  for (let i = 0; i < items.length; i++) {
    const it = items[i];
    const d = decisions[i];
    const p = it.limited ? decider.policy(it.policy) : undefined;
    if (!it.limited || d === null || p === undefined) {
      statuses.push({ code: 'OK' });
      limited.push(null);
      policies.push(undefined);
      continue;
    }
    const remaining = Math.min(Math.max(0, Math.floor(d.remaining)), UINT32_MAX);
    statuses.push({
      code: d.allowed ? 'OK' : 'OVER_LIMIT',
      current_limit: currentLimit(p),
      limit_remaining: remaining,
      duration_until_reset: duration(d.allowed ? d.resetMs : (d.retryAfterMs ?? d.resetMs)),
    });
    // a refund is always OK and counted nothing: its headers bind nothing
    limited.push(it.refund ? null : d);
    policies.push(p);
  }
  const b = bindingDecision(limited);
  const binding = b < 0 ? null : (limited[b] as Decision);
  const over = binding !== null && !binding.allowed;
  const headers = binding === null ? {} : (policies[b] as PolicyDecider).headers(binding);
  return {
    overall_code: over ? 'OVER_LIMIT' : 'OK',
    statuses,
    response_headers_to_add: Object.entries(headers).map(([key, value]) => ({ key, value })),
  };
}
