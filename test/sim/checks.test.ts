import { describe, expect, it } from 'vitest';
import { checkAlignedFixedWindow, checkErlang, checkSingleGatewayEquivalence } from '../../src/sim/checks.js';
import { erlangB } from '../../src/sim/erlang.js';

describe("the study's checks", () => {
  it('Erlang B matches known values', () => {
    // B(1, 1) = 1/2; B(2, 1) = 1/5; B(100, 80) from the recurrence, as tabulated
    expect(erlangB(1, 1)).toBeCloseTo(0.5, 12);
    expect(erlangB(2, 1)).toBeCloseTo(0.2, 12);
    expect(erlangB(100, 80)).toBeCloseTo(0.004, 3);
  });

  it('central-log serves a steady client at 80 % at the Erlang loss rate (fixed seeds)', () => {
    const r = checkErlang(5, 300);
    console.log(r.detail);
    expect(r.passed).toBe(true);
  });

  it('with K = 1 the synced designs make the central log decisions, request by request', () => {
    const r = checkSingleGatewayEquivalence(20);
    console.log(r.detail);
    expect(r.passed).toBe(true);
  });

  it('aligned syncs with a fixed window give exactly K × L per window', () => {
    const r = checkAlignedFixedWindow(20);
    console.log(r.detail);
    expect(r.passed).toBe(true);
  });
});
