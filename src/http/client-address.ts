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
