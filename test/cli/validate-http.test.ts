import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ConfigErrors } from '../../src/config.js';
import { loadConfig } from '../../src/config-file.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { withRateLimit } from '../../src/http/index.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { runFleetlimit } from '../support/run-cli.js';

// Issue 20: the 429 is the user's in a configuration file too — the file's "http" section takes the
// middleware's statusCode and message (a string, or JSON); code (handler, key, cost, skip) and a set's
// `policy` are refused with the reason; the top-level policyName names the gateway's policy.

const dir = mkdtempSync(join(tmpdir(), 'fleetlimit-validate-http-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = { id: 'gw-1', design: 'split', limit: 1, windowMs: 60_000, gateways: 1, syncMs: 1_000 };

async function validate(config: unknown): Promise<{ out: string; err: string; code: number | undefined }> {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(config));
  return runFleetlimit(['validate', file]);
}

describe('fleetlimit validate: the http section', () => {
  it('takes statusCode, a message as a string or as JSON, and a top-level policyName', async () => {
    for (const message of [
      'Slow down\n',
      { error: 'rate_limited', docs: 'https://example.com/limits' },
      ['a'],
    ]) {
      const r = await validate({ ...base, policyName: 'api', http: { statusCode: 503, message } });
      expect(r.code, r.err).toBeUndefined();
      expect(r.out).toMatch(/valid \(split, L = 1 per 60000 ms/);
    }
  });

  it('names every bad field at once, one a line, saying why', async () => {
    const r = await validate({
      ...base,
      policyName: 'a b',
      http: {
        statusCode: 200,
        message: 42,
        handler: 'sendProblem',
        policy: 'free',
        key: 'ip',
        skip: true,
        nope: 1,
      },
    });
    expect(r.code).toBe(2);
    const lines = r.err.trim().split('\n');
    expect(lines[0]).toMatch(/: 8 errors$/);
    const byField = Object.fromEntries(
      lines.slice(1).map((l) => {
        const m = /^fleetlimit: ([\w.]+): (.*)$/.exec(l);
        return [m?.[1], m?.[2]];
      }),
    );
    expect(Object.keys(byField).sort()).toEqual(
      [
        'policyName',
        'http.statusCode',
        'http.message',
        'http.handler',
        'http.policy',
        'http.key',
        'http.skip',
        'http.nope',
      ].sort(),
    );
    expect(byField['http.statusCode']).toMatch(/from 400 to 599, got 200/);
    expect(byField['http.message']).toMatch(/a string or a JSON object or array/);
    expect(byField['http.handler']).toMatch(/is code .* statusCode and message/);
    expect(byField['http.policy']).toMatch(/top-level "policyName"/);
    expect(byField['http.key']).toMatch(/is code/);
    expect(byField['http.nope']).toMatch(/is not an option; expected one of .*statusCode, message/);
  });

  it('loadConfig lists the same errors (ConfigErrors) for the package user', () => {
    try {
      loadConfig({ ...base, http: { statusCode: 99, message: null } });
      expect.unreachable();
    } catch (e) {
      expect((e as ConfigErrors).errors.map((x) => x.field).sort()).toEqual([
        'http.message',
        'http.statusCode',
      ]);
    }
  });

  it('the loaded sections, passed on, answer a limited request with the configured status and body', async () => {
    const config = loadConfig({
      ...base,
      policyName: 'api',
      http: { statusCode: 503, message: { error: 'rate_limited' }, legacyHeaders: true },
    });
    const gw = createAsyncGateway({ ...config.gateway, store: new MemoryStore() });
    const limit = withRateLimit(gw, () => {}, config.http);
    const answers: { status: number; headers: Record<string, string>; body: string }[] = [];
    for (let i = 0; i < 2; i++) {
      const headers: Record<string, string> = {};
      await new Promise<void>((resolve) => {
        const res = {
          statusCode: 200,
          headersSent: false,
          setHeader: (k: string, v: string) => {
            headers[k] = v;
          },
          end(body = '') {
            answers.push({ status: res.statusCode, headers, body });
            resolve();
          },
        };
        const req = { headers: {}, socket: { remoteAddress: '127.0.0.1' } };
        limit(req as unknown as IncomingMessage, res as unknown as ServerResponse);
        // an admitted request goes to the handler, which here answers nothing
        if (i === 0) setImmediate(resolve);
      });
    }
    expect(answers).toHaveLength(1);
    expect(answers[0].status).toBe(503);
    expect(answers[0].body).toBe('{"error":"rate_limited"}');
    expect(answers[0].headers['Content-Type']).toMatch(/^application\/json/);
    expect(answers[0].headers['RateLimit-Policy']).toBe('"api";q=1;w=60');
    expect(answers[0].headers['X-RateLimit-Limit']).toBe('1');
  });
});
