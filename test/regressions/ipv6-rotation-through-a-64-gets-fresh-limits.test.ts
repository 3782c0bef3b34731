// Issue 32: an IPv6 client has a whole /64 (often a /56 or /48) to itself, and keying by the full
// address gave each of its addresses a limit of its own: rotating through the /64 got a fresh limit
// per request. Now an IPv6 address is keyed by its /56 (`ipv6Subnet`, as express-rate-limit's) in
// the middleware, in the sidecar's header keys (NGINX's X-Real-IP) and in Envoy's descriptor values.
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-file.js';
import { createRequestDecider } from '../../src/http/index.js';
import { planRequest } from '../../src/sidecar/envoy.js';
import { type Sidecar, startSidecar } from '../../src/sidecar/sidecar.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { smallGateway } from '../support/http.js';

/** 20 addresses of one /64, then 20 more across other /64s of the same /56. */
const ROTATING = [
  ...Array.from({ length: 20 }, (_, i) => `2001:db8:1234:5601:${(i + 1).toString(16)}::7`),
  ...Array.from({ length: 20 }, (_, i) => `2001:db8:1234:56${(i + 2).toString(16).padStart(2, '0')}::1`),
];

let sc: Sidecar | null = null;
afterEach(async () => {
  await sc?.stop();
  sc = null;
});

describe('an IPv6 client rotating through its prefix is held to one limit', () => {
  it('the middleware: 40 addresses of one /56, L = 2: 2 admitted', async () => {
    const { gw } = smallGateway('shared-counter');
    const decide = createRequestDecider(gw);
    let admitted = 0;
    for (const a of ROTATING) {
      const out = await decide({ socket: { remoteAddress: a }, headers: {} });
      if (out.status === 200) admitted++;
    }
    expect(admitted).toBe(2);
    // another /56 is another client
    const other = await decide({ socket: { remoteAddress: '2001:db8:1234:5700::1' }, headers: {} });
    expect(other.status).toBe(200);
  });

  it('the sidecar, keyed by X-Real-IP: 40 addresses of one /56, L = 3: 3 admitted', async () => {
    sc = await startSidecar(
      loadConfig({
        id: 'sc-v6',
        design: 'shared-counter',
        limit: 3,
        windowMs: 60_000,
        gateways: 1,
        syncMs: 1000,
        sidecar: { http: { port: 0, keyHeaders: ['x-real-ip'] } },
      }),
      { store: new MemoryStore() },
    );
    let admitted = 0;
    for (const a of ROTATING) {
      const r = await fetch(`${sc.httpUrl}/decide`, { headers: { 'x-real-ip': a } });
      await r.arrayBuffer();
      if (r.status === 204) admitted++;
    }
    expect(admitted).toBe(3);
  });

  it("Envoy's remote_address descriptor: every address of one /56 makes one key", () => {
    const m = { domain: 'edge', descriptors: [{ keys: ['remote_address'], policy: 'p' }], maxDescriptors: 8 };
    const keys = new Set(
      ROTATING.map((a) => {
        const p = planRequest(
          {
            domain: 'edge',
            hits_addend: 0,
            descriptors: [{ entries: [{ key: 'remote_address', value: a }] }],
          },
          m,
        );
        return p.ok && p.items[0].limited ? p.items[0].key : null;
      }),
    );
    expect([...keys]).toHaveLength(1);
    expect(keys.has(null)).toBe(false);
  });
});
