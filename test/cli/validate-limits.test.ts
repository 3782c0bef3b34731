/**
 * `fleetlimit validate` and the sidecar's startup line name every policy's limit: with named
 * policies (sidecar.policies) the top-level one alone would hide what the others hold.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/cli/validate-command.js';

const file = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(`docs/examples/${name}`, 'utf8'));

describe('the limits validate prints', () => {
  it('one policy: its L and W', () => {
    const { sidecar: _, ...plain } = file('sidecar-nginx.json');
    expect(validateConfig(plain).limits).toMatch(/^L = \d+ per \d+ ms$/);
  });

  it('named policies: each by name, the top-level one first', () => {
    const c = file('sidecar-nginx.json');
    const named = (c.sidecar as { policies: Record<string, { limit: number; windowMs: number }> }).policies;
    const top = `${c.policyName ?? 'default'}: L = ${c.limit} per ${c.windowMs} ms`;
    const rest = Object.entries(named).map(([n, p]) => `${n}: L = ${p.limit} per ${p.windowMs} ms`);
    expect(rest.length).toBeGreaterThan(0);
    expect(validateConfig(c).limits).toBe([top, ...rest].join('; '));
  });
});
