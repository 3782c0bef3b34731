// Issue 32, item 4: the shipped NGINX example (docs/examples/sidecar-nginx.json behind
// docs/examples/nginx.conf) keyed by x-api-key first and by the client address only when the header
// was absent, with no per-address limit behind it: a client that invented a key per request got 500
// of 500 through. Here the sidecar runs the example file as shipped (on the in-memory store), and
// each request is the subrequest nginx.conf's /_fleetlimit location makes: its proxy_pass path, the
// client's x-api-key passed on, X-Real-IP set to the client's address.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-file.js';
import { type Sidecar, startSidecar } from '../../src/sidecar/sidecar.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const ROOT = join(import.meta.dirname, '../..');
const example = JSON.parse(readFileSync(join(ROOT, 'docs/examples/sidecar-nginx.json'), 'utf8')) as Record<
  string,
  unknown
>;
const conf = readFileSync(join(ROOT, 'docs/examples/nginx.conf'), 'utf8');

/** The path the `location = /_fleetlimit` of nginx.conf proxies each auth_request to. */
function decidePath(): string {
  const block = /location = \/_fleetlimit \{([^}]*)\}/.exec(conf);
  const pass = block === null ? null : /proxy_pass http:\/\/fleetlimit(\/\S*);/.exec(block[1]);
  if (pass === null) throw new Error('docs/examples/nginx.conf: no proxy_pass in location = /_fleetlimit');
  return pass[1];
}

let sc: Sidecar | null = null;
afterEach(async () => {
  await sc?.stop();
  sc = null;
});

describe('the NGINX example holds a client that invents an API key per request', () => {
  it('500 requests from one address, each with a fresh x-api-key: at most the per-address limit admitted', async () => {
    sc = await startSidecar(loadConfig({ ...example, sidecar: { ...(example.sidecar as object) } }), {
      store: new MemoryStore(),
      httpPort: 0,
    });
    const url = `${sc.httpUrl}${decidePath()}`;
    let admitted = 0;
    for (let i = 0; i < 500; i++) {
      const r = await fetch(url, { headers: { 'x-api-key': `invented-${i}`, 'x-real-ip': '203.0.113.7' } });
      await r.arrayBuffer();
      if (r.status === 204) admitted++;
      else expect(r.status).toBe(429);
    }
    expect(admitted, 'admitted of 500').toBeLessThan(500);
    // held by a policy of the example keyed by X-Real-IP alone, named on the same path
    const named = decidePath().slice('/decide/'.length).split(',');
    const limits = [...sc.options.http.policies]
      .filter(([name, k]) => named.includes(name) && k.keyHeaders.join() === 'x-real-ip')
      .map(([name]) => sc?.gateways.get(name)?.options.policy.limit ?? Number.POSITIVE_INFINITY);
    expect(limits.length, `${decidePath()} names no policy keyed by the address alone`).toBeGreaterThan(0);
    expect(admitted).toBeLessThanOrEqual(Math.min(...limits));
  });
});
