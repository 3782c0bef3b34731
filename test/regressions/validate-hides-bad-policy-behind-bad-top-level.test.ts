import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/cli/validate-command.js';
import { ConfigError, ConfigErrors } from '../../src/config.js';

/**
 * `fleetlimit validate` reported bad fields in stages (issue 36): a named sidecar policy was checked
 * only once the top-level options passed, so a file with a bad `design` and a bad `login.limit`
 * showed the first, and the second only after it was fixed. One pass now names every bad field.
 */
function fields(raw: unknown): string[] {
  try {
    validateConfig(raw);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return (e instanceof ConfigErrors ? e.errors : [e]).map((x) => x.field).sort();
  }
  return [];
}

const top = {
  id: 'edge-1',
  design: 'adaptive-early',
  limit: 100,
  windowMs: 60_000,
  gateways: 2,
  syncMs: 1000,
};

describe('validate: every bad field in one pass', () => {
  it('names a named policy’s bad fields beside the top level’s', () => {
    const raw = {
      ...top,
      design: 'nope',
      limit: -1,
      sidecar: { policies: { login: { limit: 'ten', windowMs: 0 }, ok: { limit: 5, windowMs: 60_000 } } },
    };
    expect(fields(raw)).toEqual([
      'design',
      'limit',
      'sidecar.policies.login.limit',
      'sidecar.policies.login.windowMs',
    ]);
  });

  it('names a policy’s bad field beside another policy’s structural error', () => {
    const raw = { ...top, sidecar: { policies: { a: { limit: 5 }, b: { limit: 0, windowMs: 60_000 } } } };
    expect(fields(raw)).toEqual(['sidecar.policies.a.windowMs', 'sidecar.policies.b.limit']);
  });

  it('blames no placeholder: a policy’s syncMs relation with a bad top level is not reported', () => {
    // windowMs 500 would be under the placeholder syncMs (1 s): the policy sets no syncMs, so no error
    const raw = { ...top, design: 'nope', sidecar: { policies: { fast: { limit: 5, windowMs: 500 } } } };
    expect(fields(raw)).toEqual(['design']);
  });

  it('a valid file still passes, and the top-level checks of a named policy are unchanged', () => {
    expect(fields({ ...top, sidecar: { policies: { login: { limit: 5, windowMs: 60_000 } } } })).toEqual([]);
    expect(fields({ ...top, sidecar: { policies: { fast: { limit: 5, windowMs: 500 } } } })).toEqual([
      'sidecar.policies.fast.syncMs',
    ]);
  });
});
