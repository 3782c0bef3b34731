// The pure mapping of Envoy's ShouldRateLimit onto the gateway (src/sidecar/envoy.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planRequest, type RlsRequest, unitOf } from '../../src/sidecar/envoy.js';

const M = { domain: 'edge', descriptors: [{ keys: ['a', 'b'], policy: 'api' }], maxDescriptors: 8 };
const req = (values: [string, string]): RlsRequest => ({
  domain: 'edge',
  hits_addend: 0,
  descriptors: [
    {
      entries: [
        { key: 'a', value: values[0] },
        { key: 'b', value: values[1] },
      ],
    },
  ],
});

describe('planRequest', () => {
  it('two different descriptors never make one key, whatever their values hold', () => {
    const value = fc.string({ unit: fc.constantFrom('a', 'b', '|', '\\', '='), minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(fc.tuple(value, value), fc.tuple(value, value), (x, y) => {
        const kx = planRequest(req(x), M);
        const ky = planRequest(req(y), M);
        if (!kx.ok || !ky.ok || !kx.items[0].limited || !ky.items[0].limited) return false;
        return (kx.items[0].key === ky.items[0].key) === (x[0] === y[0] && x[1] === y[1]);
      }),
      { seed: 22, numRuns: 2000 },
    );
  });

  it('two different byte strings never make one key, valid UTF-8 or not (issue 32)', () => {
    // bytes the server decodes (rls_bytes.proto): ill-formed UTF-8, U+FFFD's own bytes, and the
    // characters a lossless escape is written with
    const bytes = fc
      .uint8Array({ minLength: 1, maxLength: 6 })
      .map((a) =>
        Buffer.from(
          a.map((b) => [0x61, 0x5c, 0x78, 0x66, 0x7c, 0xff, 0xfe, 0xef, 0xbf, 0xbd, 0xc3, 0xa9][b % 12]),
        ),
      );
    const key = (v: Buffer) => {
      const p = planRequest(
        { domain: 'edge', hits_addend: 0, descriptors: [{ entries: [{ key: Buffer.from('a'), value: v }] }] },
        { ...M, descriptors: [{ keys: ['a'], policy: 'api' }] },
      );
      return p.ok && p.items[0].limited ? p.items[0].key : null;
    };
    fc.assert(
      fc.property(bytes, bytes, (x, y) => {
        const kx = key(x);
        const ky = key(y);
        return kx !== null && ky !== null && (kx === ky) === x.equals(y);
      }),
      { seed: 32, numRuns: 5000 },
    );
    // valid UTF-8 keys as its text, as a string value does
    expect(key(Buffer.from('caf\u00e9|x'))).toBe('a=caf\u00e9\\|x');
    expect(key(Buffer.from([0x61, 0xff]))).toBe('a=a\\xff');
    expect(key(Buffer.from('a\\xff'))).toBe('a=a\\\\xff');
  });

  it('takes hits_addend 0 as 1 and caps a 64-bit one below 2^53', () => {
    const p = planRequest({ ...req(['x', 'y']), hits_addend: 0 }, M);
    expect(p).toEqual({
      ok: true,
      items: [{ limited: true, policy: 'api', key: 'a=x|b=y', cost: 1, refund: false }],
    });
    const big = planRequest(
      {
        domain: 'edge',
        hits_addend: 1,
        descriptors: [{ ...req(['x', 'y']).descriptors[0], hits_addend: { value: '18446744073709551615' } }],
      },
      M,
    );
    expect(big.ok && big.items[0].limited && big.items[0].cost).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('holds each descriptor to the policy of the rule its entry keys match', () => {
    const m = {
      domain: 'edge',
      descriptors: [
        { keys: ['api_key'], policy: 'per-key' },
        { keys: ['remote_address'], policy: 'per-ip' },
        { keys: ['plan', 'api_key'], policy: 'per-key' },
      ],
      maxDescriptors: 8,
    };
    const p = planRequest(
      {
        domain: 'edge',
        hits_addend: 2,
        descriptors: [
          { entries: [{ key: 'remote_address', value: '10.0.0.1' }] },
          { entries: [{ key: 'api_key', value: 'k' }] },
          { entries: [{ key: 'path', value: '/' }] },
          {
            entries: [
              { key: 'plan', value: 'free' },
              { key: 'api_key', value: 'k' },
            ],
          },
        ],
      },
      m,
    );
    expect(p).toEqual({
      ok: true,
      items: [
        { limited: true, policy: 'per-ip', key: 'remote_address=10.0.0.1', cost: 2, refund: false },
        { limited: true, policy: 'per-key', key: 'api_key=k', cost: 2, refund: false },
        { limited: false },
        { limited: true, policy: 'per-key', key: 'plan=free|api_key=k', cost: 2, refund: false },
      ],
    });
    // another domain: no rule applies, whatever the keys
    const other = planRequest(
      { domain: 'x', hits_addend: 0, descriptors: [{ entries: [{ key: 'api_key', value: 'k' }] }] },
      m,
    );
    expect(other).toEqual({ ok: true, items: [{ limited: false }] });
  });

  it('names the unit only when W is exactly one', () => {
    expect([1000, 60_000, 3_600_000, 86_400_000, 2000].map(unitOf)).toEqual([
      'SECOND',
      'MINUTE',
      'HOUR',
      'DAY',
      'UNKNOWN',
    ]);
  });
});
