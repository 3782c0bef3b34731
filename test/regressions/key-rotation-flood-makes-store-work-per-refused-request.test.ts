// Issue 32: a key-rotation flood through the sidecar cost Redis about 100 commands per hostile
// request. Each request carried a new x-api-key, so each made a key under the api policy, with one
// admit that the gateway pushed and then read from the store at every sync for the whole window (a
// key is read every Δ while its admits count: that is what keeps a view fresh when the designs make no
// request-path call). Refused by the address's limit or not, every request was counted under its
// key, as Envoy's reference service counts every descriptor. Now NGINX's /_fleetlimit asks the
// per-address limit first and the policies of a path are asked in order, the first refusal ending
// it: a request the address's limit refuses makes no key, no admit and no store work under the API
// key, so a rotating client costs the store at most the per-address limit's keys per window.
//
// Here the NGINX example (docs/examples/sidecar-nginx.json, the path of nginx.conf's /_fleetlimit)
// on the in-memory store: 2,000 requests from one address, each with a new x-api-key; the keys the
// api policy's gateway holds, and the ones its syncs pushed to the store, are counted.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config-file.js';
import { type Sidecar, startSidecar } from '../../src/sidecar/sidecar.js';
import type { SyncRequest } from '../../src/store/contract.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const ROOT = join(import.meta.dirname, '../..');
const example = JSON.parse(readFileSync(join(ROOT, 'docs/examples/sidecar-nginx.json'), 'utf8')) as Record<
  string,
  unknown
>;
const conf = readFileSync(join(ROOT, 'docs/examples/nginx.conf'), 'utf8');

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

describe('a key-rotation flood through the NGINX example', () => {
  it('2,000 requests from one address, each with a new x-api-key: at most the per-address limit of api keys', async () => {
    const store = new MemoryStore();
    const pushed = new Set<string>();
    const sync = store.sync.bind(store);
    store.sync = (req: SyncRequest, now: number) => {
      if (req.policy.name === 'api') for (const e of req.entries) pushed.add(e.key);
      return sync(req, now);
    };
    sc = await startSidecar(loadConfig(example), { store, httpPort: 0 });
    const url = `${sc.httpUrl}${decidePath()}`;
    const api = sc.gateways.get('api');
    let admitted = 0;
    for (let i = 0; i < 2000; i++) {
      const r = await fetch(url, { headers: { 'x-api-key': `rotating-${i}`, 'x-real-ip': '203.0.113.7' } });
      await r.arrayBuffer();
      if (r.status === 204) admitted++;
    }
    const held = api?.stats().keys ?? Number.NaN;
    await sc.stop();
    sc = null;
    console.log(`${admitted} of 2000 admitted; api keys held ${held}, pushed to the store ${pushed.size}`);
    expect(admitted).toBeLessThanOrEqual(300);
    // each key the api policy holds is read from the store every Δ for W: only requests the
    // address's limit let through may make one
    expect(held).toBeLessThanOrEqual(300);
    expect(pushed.size).toBeLessThanOrEqual(300);
  });
});
