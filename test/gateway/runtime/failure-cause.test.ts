import { describe, expect, it } from 'vitest';
import { FAILURE_CAUSES, failureCause } from '../../../src/gateway/runtime/failure-cause.js';
import { withTimeout } from '../../../src/gateway/runtime/timeout.js';

/** Errors as ioredis 6 and Node throw them (messages copied from node_modules/ioredis/built). */
const named = (name: string, message: string) => Object.assign(new Error(message), { name });
const coded = (code: string, message: string) => Object.assign(new Error(message), { code });

const REFUSED: [string, unknown][] = [
  ['a socket refusal', coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:6379')],
  ['a reset connection', coded('ECONNRESET', 'read ECONNRESET')],
  ['a closed connection', new Error('Connection is closed.')],
  ['no offline queue', new Error("Stream isn't writeable and enableOfflineQueue options is false")],
  ['no offline queue (cluster)', new Error("Cluster isn't ready and enableOfflineQueue options is false")],
  [
    'retries given up',
    named('MaxRetriesPerRequestError', 'Reached the max retries per request limit (which is 0).'),
  ],
  ['no cluster node', named('ClusterAllFailedError', 'Failed to refresh slots cache.')],
  ['no startup node', new Error('None of startup nodes is available')],
  ['aborted on close', named('AbortError', 'Command aborted due to connection close')],
  ['connect timeout', new Error('connect ETIMEDOUT')],
  ['wrapped in cause', new Error('sync failed', { cause: coded('ECONNREFUSED', 'refused') })],
  [
    'in an AggregateError',
    new AggregateError([new Error('x'), coded('ECONNREFUSED', 'refused')], 'all failed'),
  ],
];

const ERRORS: [string, unknown][] = [
  ['a script error', named('ReplyError', 'ERR user_script:1: attempt to index a nil value')],
  ['a wrong type', named('ReplyError', 'WRONGTYPE Operation against a key holding the wrong kind of value')],
  ['a stale seq', new RangeError('gateway a: sync 3 older than 4')],
  ['busy loading', named('ReplyError', 'LOADING Redis is loading the dataset in memory')],
  ['a message that only contains a refusal sign', new Error('script said: Connection is closed.')],
  ['a string', 'down'],
  ['nothing', undefined],
  ['null', null],
];

describe('failureCause', () => {
  it('lists each cause once', () => {
    expect(new Set(FAILURE_CAUSES)).toEqual(new Set(['timeout', 'refused', 'error']));
  });

  it.each(REFUSED)('refused: %s', (_n, error) => {
    expect(failureCause({ timedOut: false, error })).toBe('refused');
  });

  it.each(ERRORS)('error: %s', (_n, error) => {
    expect(failureCause({ timedOut: false, error })).toBe('error');
  });

  it("timeout: the deadline passed with the client connected, or its state unknown, or ioredis' commandTimeout", () => {
    expect(failureCause({ timedOut: true, connected: true })).toBe('timeout');
    expect(failureCause({ timedOut: true })).toBe('timeout');
    expect(failureCause({ timedOut: false, error: new Error('Command timed out') })).toBe('timeout');
  });

  it('refused: the deadline passed while the client had no connection (an offline queue)', () => {
    expect(failureCause({ timedOut: true, connected: false })).toBe('refused');
  });

  it('stops at a cycle of causes', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(failureCause({ timedOut: false, error: a })).toBe('error');
  });
});

describe('withTimeout names the cause', () => {
  it('reads the store connection only when the deadline passes', async () => {
    let reads = 0;
    const store = {
      connected: () => {
        reads++;
        return false;
      },
    };
    const refused = await withTimeout(() => Promise.reject(new Error('Connection is closed.')), 1000, store);
    expect(refused).toMatchObject({ ok: false, timedOut: false, cause: 'refused' });
    expect(reads).toBe(0);
    const queued = await withTimeout(() => new Promise(() => {}), 1, store);
    expect(queued).toEqual({ ok: false, timedOut: true, cause: 'refused' });
    expect(reads).toBe(1);
    const slow = await withTimeout(() => new Promise(() => {}), 1, { connected: () => true });
    expect(slow).toEqual({ ok: false, timedOut: true, cause: 'timeout' });
  });

  it('a call that throws synchronously is classified like a rejection', async () => {
    const r = await withTimeout(() => {
      throw new Error("Stream isn't writeable and enableOfflineQueue options is false");
    }, 1000);
    expect(r).toMatchObject({ ok: false, cause: 'refused' });
  });
});
