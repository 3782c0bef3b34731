import { describe, expect, it } from 'vitest';
import { ConfigError, makePolicy } from '../../src/config.js';
import { clientAddress, normalizeAddress, rateLimitHeaders, TrustedProxies } from '../../src/http/index.js';

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
