import { BlockList, isIP } from 'node:net';
import { ConfigError } from '../config.js';

/** Named sets accepted in `trustedProxies`, besides IPs and CIDRs. */
const NAMED: Record<string, readonly string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  private: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
};

/** `::ffff:1.2.3.4` is the IPv4 client 1.2.3.4 seen through a dual-stack socket: it keys as IPv4. */
export function normalizeAddress(addr: string): string {
  const a = addr.trim();
  if (a.length > 7 && a.slice(0, 7).toLowerCase() === '::ffff:' && isIP(a.slice(7)) === 4) return a.slice(7);
  return a;
}

/** The IP of one X-Forwarded-For hop, without brackets or port; null if it is not an IP. */
function parseHop(hop: string): string | null {
  let h = hop.trim();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    if (end < 0) return null;
    h = h.slice(1, end);
  } else if (h.includes('.') && h.lastIndexOf(':') > h.lastIndexOf('.')) {
    h = h.slice(0, h.lastIndexOf(':')); // 1.2.3.4:5678
  }
  h = normalizeAddress(h);
  return isIP(h) === 0 ? null : h;
}

/** Which peers may set X-Forwarded-For: IPs, CIDRs, or the names loopback, private, linklocal. */
export class TrustedProxies {
  private readonly list = new BlockList();
  readonly empty: boolean;

  constructor(entries: readonly string[]) {
    if (!Array.isArray(entries)) throw new ConfigError('trustedProxies', 'must be an array of IPs or CIDRs');
    this.empty = entries.length === 0;
    for (const entry of entries) {
      for (const e of NAMED[entry] ?? [entry]) this.add(e);
    }
  }

  private add(entry: unknown): void {
    const bad = () =>
      new ConfigError('trustedProxies', `not an IP, a CIDR or a known name: ${JSON.stringify(entry)}`);
    if (typeof entry !== 'string') throw bad();
    const slash = entry.indexOf('/');
    const ip = normalizeAddress(slash < 0 ? entry : entry.slice(0, slash));
    const family = isIP(ip);
    if (family === 0) throw bad();
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (slash < 0) {
      this.list.addAddress(ip, type);
      return;
    }
    const prefix = Number(entry.slice(slash + 1));
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) throw bad();
    this.list.addSubnet(ip, prefix, type);
  }

  has(addr: string): boolean {
    const family = isIP(addr);
    if (family === 0) return false;
    return this.list.check(addr, family === 4 ? 'ipv4' : 'ipv6');
  }
}

export interface PeerLike {
  headers: Record<string, string | string[] | undefined>;
  socket?: { remoteAddress?: string } | null;
}

/**
 * The client's address. The socket's peer, unless that peer is a trusted proxy: then X-Forwarded-For is
 * read right to left, skipping trusted hops, and the first untrusted hop is the client (anything left
 * of it was written by the client and proves nothing). A hop that is not an IP ends the walk at the last
 * trusted address. If every hop is trusted, the leftmost is the client. Without a peer address (the
 * socket is gone) the key is 'unknown'.
 */
export function clientAddress(req: PeerLike, trusted: TrustedProxies | null): string {
  const raw = req.socket?.remoteAddress;
  if (raw === undefined || raw === '') return 'unknown';
  let addr = normalizeAddress(raw);
  if (trusted === null || trusted.empty || !trusted.has(addr)) return addr;
  const header = req.headers['x-forwarded-for'];
  if (header === undefined) return addr;
  const hops = (Array.isArray(header) ? header.join(',') : header).split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseHop(hops[i]);
    if (hop === null) return addr;
    addr = hop;
    if (!trusted.has(hop)) return hop;
  }
  return addr;
}

/** The prefix an IPv6 address is keyed by when none is configured: /56, as express-rate-limit's. */
export const DEFAULT_IPV6_SUBNET = 56;

/**
 * `ipv6Subnet`: an integer from 32 to 64 (the prefix an IPv6 client is keyed by), or false (each IPv6
 * address its own key). express-rate-limit takes the same range.
 */
export function checkIpv6Subnet(field: string, v: unknown): number | false {
  if (v === false) return false;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 32 || v > 64) {
    throw new ConfigError(
      field,
      `must be an integer from 32 to 64 (the prefix an IPv6 client is keyed by; usually 48 to 64) or false, got ${JSON.stringify(v)}`,
    );
  }
  return v;
}

/** The eight 16-bit words of an IPv6 address (isIP(a) === 6, no zone); null if it does not parse. */
function ipv6Words(a: string): number[] | null {
  let s = a;
  const lastColon = s.lastIndexOf(':');
  if (s.indexOf('.', lastColon) >= 0) {
    // an embedded IPv4 address: its two words, in hex
    const v4 = s
      .slice(lastColon + 1)
      .split('.')
      .map(Number);
    s = `${s.slice(0, lastColon + 1)}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
  }
  const dbl = s.indexOf('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => Number.parseInt(h, 16)));
  let words: number[];
  if (dbl < 0) words = parse(s);
  else {
    const head = parse(s.slice(0, dbl));
    const rest = parse(s.slice(dbl + 2));
    const zeros = 8 - head.length - rest.length;
    if (zeros < 0) return null;
    words = [...head, ...new Array<number>(zeros).fill(0), ...rest];
  }
  if (words.length !== 8 || words.some((w) => !Number.isInteger(w) || w < 0 || w > 0xffff)) return null;
  return words;
}

/** An IPv6 address in its RFC 5952 form: lower case, the longest run of two or more zero words as `::`. */
function formatIpv6(words: readonly number[]): string {
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (ws: readonly number[]) => ws.map((w) => w.toString(16)).join(':');
  if (best < 0) return hex(words);
  return `${hex(words.slice(0, best))}::${hex(words.slice(best + bestLen))}`;
}

/**
 * The key of a client address: an IPv4 address as it is; an IPv6 address by its `/ipv6Subnet`
 * network, as `2001:db8:1234:5600::/56` (a client holds a whole /64 or more, and would get a fresh
 * limit per address it rotates to); with `ipv6Subnet` false, as it is. An IPv4-mapped address keys
 * as IPv4; anything that is not an IP address (an API key) is returned unchanged.
 */
export function addressKey(addr: string, ipv6Subnet: number | false = DEFAULT_IPV6_SUBNET): string {
  if (addr.indexOf(':') < 0) return addr; // IPv4, or not an address: the common case, at once
  const a = normalizeAddress(addr);
  if (a.indexOf(':') < 0 || ipv6Subnet === false) return a; // IPv4-mapped: IPv4
  const zone = a.indexOf('%');
  const bare = zone < 0 ? a : a.slice(0, zone);
  if (isIP(bare) !== 6) return addr;
  // the deprecated IPv4-compatible form (::1.2.3.4) is that IPv4 client, as express-rate-limit keys it
  if (bare.startsWith('::') && bare.indexOf(':', 2) < 0 && isIP(bare.slice(2)) === 4) return bare.slice(2);
  const words = ipv6Words(bare.toLowerCase());
  if (words === null) return addr;
  for (let i = 0; i < 8; i++) {
    const keep = Math.max(0, Math.min(16, ipv6Subnet - i * 16));
    words[i] &= keep === 0 ? 0 : (0xffff << (16 - keep)) & 0xffff;
  }
  return `${formatIpv6(words)}/${ipv6Subnet}`;
}
