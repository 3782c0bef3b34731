import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/cli/validate-command.js';
import type { ConfigError } from '../../src/config.js';
import { loadConfig } from '../../src/config-file.js';
import { type Sidecar, startSidecar } from '../../src/sidecar/sidecar.js';
import { MemoryStore } from '../../src/store/memory-store.js';

/**
 * The middleware took `standardHeaders: 'draft-6'` (the RateLimit-Limit/-Remaining/-Reset trio) and
 * 'draft-8', but a configuration file's `http.standardHeaders` had to be true or false: the sidecar,
 * which reads only files, could not send the trio. The file now takes what the middleware takes.
 */
const BASE = {
  id: 'sc-1',
  design: 'shared-counter',
  limit: 3,
  windowMs: 60_000,
  gateways: 1,
  syncMs: 1_000,
  sidecar: { http: { port: 0, keyHeaders: ['x-api-key'] } },
};

let sc: Sidecar | null = null;
afterEach(async () => {
  await sc?.stop();
  sc = null;
});

describe("a configuration file's http.standardHeaders", () => {
  it("takes 'draft-6' and 'draft-8' as the middleware does, and names a bad value", () => {
    for (const v of [true, false, 'draft-6', 'draft-8'])
      expect(validateConfig({ ...BASE, http: { standardHeaders: v } }).limit).toBe(3);
    let field = '';
    try {
      validateConfig({ ...BASE, http: { standardHeaders: 'draft-7' } });
    } catch (e) {
      field = (e as ConfigError).field;
    }
    expect(field).toBe('http.standardHeaders');
  });

  it("'draft-6': the sidecar sends the RateLimit-Limit, -Remaining and -Reset trio", async () => {
    sc = await startSidecar(loadConfig({ ...BASE, http: { standardHeaders: 'draft-6' } }), {
      store: new MemoryStore(),
    });
    const r = await fetch(`${sc.httpUrl}/decide`, { headers: { 'x-api-key': 'a' } });
    expect(r.status).toBe(204);
    expect(r.headers.get('ratelimit-limit')).toBe('3');
    expect(r.headers.get('ratelimit-remaining')).toBe('2');
    expect(r.headers.get('ratelimit')).toBeNull();
  });
});
