// The reading both HTTP paths share (src/http/request-reader.ts): the middleware's decider and the
// sidecar's /decide read a request's key and cost with it, so a bad one is handled alike.
import { describe, expect, it } from 'vitest';
import { type ReadingOptions, requestReading, SKIP_REQUEST } from '../../src/http/request-reader.js';

interface Req {
  key?: unknown;
  cost?: unknown;
}

const reading = (o: Partial<ReadingOptions<Req>> = {}) =>
  requestReading<Req>({
    key: (r: Req) => r.key,
    cost: (r: Req) => r.cost,
    onKey: 'reject',
    onCost: 'reject',
    ...o,
  });

describe('requestReading', () => {
  it('answers a good key and cost as they are', () => {
    const read = reading();
    expect(read.key({ key: 'k' }, '192.0.2.1')).toBe('k');
    expect(read.cost({ cost: 3 })).toBe(3);
  });

  it('keys by the address without a key option, and costs 1 without a cost option', () => {
    const read = reading({ key: undefined, cost: undefined });
    expect(read.key({}, '192.0.2.1')).toBe('192.0.2.1');
    expect(read.cost({})).toBe(1);
  });

  it("answers what is wrong ('reject'), or SKIP_REQUEST ('skip')", () => {
    expect(reading().key({ key: '' }, 'a')).toEqual({ problem: 'key must not be empty' });
    expect(reading().cost({ cost: 0 })).toEqual({
      problem: expect.stringMatching(/^cost must be a positive integer/),
    });
    expect(reading({ onKey: 'skip' }).key({ key: 7 }, 'a')).toBe(SKIP_REQUEST);
    expect(reading({ onCost: 'skip' }).cost({ cost: 1.5 })).toBe(SKIP_REQUEST);
  });

  it("takes a function action's replacement when it is good, else answers the problem", () => {
    const read = reading({ onKey: () => 'fixed', onCost: () => 2 });
    expect(read.key({ key: '' }, 'a')).toBe('fixed');
    expect(read.cost({ cost: -1 })).toBe(2);
    expect(reading({ onKey: () => '' }).key({ key: '' }, 'a')).toEqual({ problem: 'key must not be empty' });
  });

  it("says a problem in the caller's words (the sidecar names its headers)", () => {
    const read = reading({
      keyProblem: (k) => (k === '' ? 'no key: none of the headers x-api-key is set' : null),
      costProblem: (c) => (c === 1 ? null : 'x-cost: bad'),
    });
    expect(read.key({ key: '' }, 'a')).toEqual({ problem: 'no key: none of the headers x-api-key is set' });
    expect(read.cost({ cost: Number.NaN })).toEqual({ problem: 'x-cost: bad' });
  });
});
