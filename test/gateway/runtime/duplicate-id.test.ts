import { afterEach, describe, expect, it, vi } from 'vitest';
import { IdClaims } from '../../../src/gateway/runtime/duplicate-id.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('IdClaims', () => {
  it("only a round's first request claims the id, and a stopping gateway's last round claims nothing", () => {
    const c = new IdClaims('g', 'g~me');
    expect(c.take()).toBe(false);
    c.startRound(false);
    expect(c.take()).toBe(true);
    expect(c.take()).toBe(false);
    c.startRound(true);
    expect(c.take()).toBe(false);
  });

  it('the first answer may name a previous run of the id (a restart): not a twin', () => {
    const c = new IdClaims('g', 'g~me');
    expect(c.answered('g~before')).toBeNull();
    expect(c.duplicate).toBe(false);
    expect(c.answered('g~me')).toBeNull();
    expect(c.answered(null)).toBeNull();
  });

  it('after an answered claim, another incarnation found there is a twin: reported, warned once', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const c = new IdClaims('g', 'g~me');
    expect(c.answered(undefined)).toBeNull(); // the store said nothing: not a claim answered
    expect(c.answered('g~twin')).toBeNull();
    expect(c.answered('g~twin')).toBe('g~twin');
    expect(c.duplicate).toBe(true);
    expect(c.answered('g~twin')).toBe('g~twin');
    expect(c.duplicateSyncs).toBe(2);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(c.answered('g~me')).toBeNull();
    expect(c.duplicate).toBe(false);
  });
});
