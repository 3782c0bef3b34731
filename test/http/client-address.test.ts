import { describe, expect, it } from 'vitest';
import { ConfigError, makePolicy } from '../../src/config.js';
import {
  addressKey,
  clientAddress,
  createRequestDecider,
  normalizeAddress,
  rateLimitHeaders,
  TrustedProxies,
} from '../../src/http/index.js';
import { smallGateway } from '../support/http.js';

const req = (remoteAddress: string | undefined, xff?: string | string[]) => ({
  socket: { remoteAddress },
  headers: xff === undefined ? {} : { 'x-forwarded-for': xff },
});

describe('client address', () => {
  it('keys IPv4-mapped IPv6 addresses as IPv4', () => {
    expect(normalizeAddress('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(normalizeAddress('::FFFF:192.0.2.1')).toBe('192.0.2.1');
    expect(normalizeAddress('2001:db8::1')).toBe('2001:db8::1');
    expect(clientAddress(req('::ffff:127.0.0.1'), null)).toBe('127.0.0.1');
  });

  it('keys an IPv6 address by its ipv6Subnet network (56 by default), IPv4 and other keys as they are', () => {
    expect(addressKey('2001:db8:1234:5601:1::7')).toBe('2001:db8:1234:5600::/56');
    expect(addressKey('2001:DB8:1234:56FF:FFFF:FFFF:FFFF:FFFF')).toBe('2001:db8:1234:5600::/56');
    expect(addressKey('2001:db8:1234:5601:1::7', 64)).toBe('2001:db8:1234:5601::/64');
    expect(addressKey('2001:db8:1234:5601:1::7', 48)).toBe('2001:db8:1234::/48');
    expect(addressKey('2001:db8:1234:5601:1::7', 33)).toBe('2001:db8::/33');
    expect(addressKey('2001:db8:ffff::1', 33)).toBe('2001:db8:8000::/33');
    expect(addressKey('2001:db8:1234:5601:1::7', false)).toBe('2001:db8:1234:5601:1::7');
    expect(addressKey('1:2:3:4:5:6:7:8')).toBe('1:2:3::/56');
    expect(addressKey('1:0:0:4:5:6:7:8', 64)).toBe('1:0:0:4::/64');
    expect(addressKey('1:0:0:0:5:6:7:8', 64)).toBe('1::/64');
    expect(addressKey('1:0:ab:0:0:6:7:8', 56)).toBe('1:0:ab::/56');
    expect(addressKey('fe80::1%eth0', 64)).toBe('fe80::/64');
    expect(addressKey('2001:db8::192.0.2.1', 64)).toBe('2001:db8::/64');
    expect(addressKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('::192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('unknown')).toBe('unknown');
    expect(addressKey('key:with:colons')).toBe('key:with:colons');
    expect(addressKey('1::2::3')).toBe('1::2::3');
  });

  it('the middleware keys an IPv6 client by its /56, ipv6Subnet sets the prefix, and checks it', async () => {
    const headers = {};
    const keyed: string[] = [];
    const at = (ipv6Subnet?: number | false) => {
      const { gw } = smallGateway('shared-counter');
      return createRequestDecider(gw, {
        ...(ipv6Subnet === undefined ? {} : { ipv6Subnet }),
        key: (_req, addr) => {
          keyed.push(addr);
          return addr;
        },
      });
    };
    await at()({ socket: { remoteAddress: '2001:db8:1:2:3:4:5:6' }, headers });
    await at(64)({ socket: { remoteAddress: '2001:db8:1:2:3:4:5:6' }, headers });
    await at(false)({ socket: { remoteAddress: '2001:db8:1:2:3:4:5:6' }, headers });
    await at()({ socket: { remoteAddress: '::ffff:192.0.2.1' }, headers });
    expect(keyed).toEqual(['2001:db8:1::/56', '2001:db8:1:2::/64', '2001:db8:1:2:3:4:5:6', '192.0.2.1']);
    const { gw } = smallGateway('shared-counter');
    for (const bad of [0, 31, 65, 128, 56.5, '56', true, null]) {
      expect(() => createRequestDecider(gw, { ipv6Subnet: bad as never })).toThrow(
        /ipv6Subnet: must be an integer from 32 to 64/,
      );
    }
  });

  it('ignores X-Forwarded-For unless the direct peer is a trusted proxy', () => {
    const trusted = new TrustedProxies(['10.0.0.0/8']);
    expect(clientAddress(req('198.51.100.1', '203.0.113.5'), null)).toBe('198.51.100.1');
    expect(clientAddress(req('198.51.100.1', '203.0.113.5'), trusted)).toBe('198.51.100.1');
    expect(clientAddress(req('10.1.2.3', '203.0.113.5'), trusted)).toBe('203.0.113.5');
  });

  it('reads X-Forwarded-For right to left, skipping trusted hops, taking the first untrusted', () => {
    const trusted = new TrustedProxies(['loopback', '10.0.0.0/8', '2001:db8::/32']);
    // the client wrote 1.1.1.1 itself; 203.0.113.5 is what our first proxy saw
    expect(clientAddress(req('127.0.0.1', '1.1.1.1, 203.0.113.5, 10.0.0.2'), trusted)).toBe('203.0.113.5');
    expect(clientAddress(req('127.0.0.1', ['1.1.1.1', '203.0.113.5,10.0.0.2']), trusted)).toBe('203.0.113.5');
    expect(clientAddress(req('::ffff:127.0.0.1', '::ffff:203.0.113.5'), trusted)).toBe('203.0.113.5');
    expect(clientAddress(req('::1', '[2001:db9::7]:443, 2001:db8::1'), trusted)).toBe('2001:db9::7');
    expect(clientAddress(req('127.0.0.1', '203.0.113.5:8080'), trusted)).toBe('203.0.113.5');
    expect(clientAddress(req('127.0.0.1', '10.0.0.3, 10.0.0.2'), trusted)).toBe('10.0.0.3');
    expect(clientAddress(req('127.0.0.1', 'garbage, 10.0.0.2'), trusted)).toBe('10.0.0.2');
    expect(clientAddress(req(undefined), trusted)).toBe('unknown');
  });

  it('rejects trusted proxies that are not IPs or CIDRs, naming the field', () => {
    for (const bad of ['10.0.0.0/33', 'example.com', '10.0.0.0/x']) {
      expect(() => new TrustedProxies([bad])).toThrow(ConfigError);
    }
  });
});

describe('RateLimit headers', () => {
  const policy = makePolicy(100, 60_000);
  it('uses the structured-field form of draft-ietf-httpapi-ratelimit-headers', () => {
    const h = rateLimitHeaders(
      { allowed: true, remaining: 42, resetMs: 16_001 },
      policy,
      '"default"',
      false,
      0,
    );
    expect(h).toEqual({ 'RateLimit-Policy': '"default";q=100;w=60', RateLimit: '"default";r=42;t=17' });
  });
  it('adds Retry-After (seconds, rounded up) on a rejection and the legacy headers on request', () => {
    const h = rateLimitHeaders(
      { allowed: false, remaining: 0, resetMs: 500, retryAfterMs: 1_200 },
      policy,
      '"default"',
      true,
      10_000,
    );
    expect(h).toMatchObject({ 'Retry-After': '2', RateLimit: '"default";r=0;t=2' });
    expect(h).toMatchObject({
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '12',
    });
  });
  it('with standardHeaders false sends only Retry-After, and only on a rejection', () => {
    const allowed = { allowed: true, remaining: 42, resetMs: 16_001 };
    const rejected = { allowed: false, remaining: 0, resetMs: 500, retryAfterMs: 1_200 };
    expect(rateLimitHeaders(allowed, policy, '"default"', false, 0, false)).toEqual({});
    expect(rateLimitHeaders(rejected, policy, '"default"', false, 0, false)).toEqual({ 'Retry-After': '2' });
    expect(rateLimitHeaders(allowed, policy, '"default"', true, 10_000, false)).toEqual({
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': '42',
      'X-RateLimit-Reset': '27',
    });
  });
});
