/**
 * Why a store call failed, as the metrics and events report it:
 * - `timeout`: the store was reachable but did not answer within storeTimeoutMs (slow, paused, overloaded);
 * - `refused`: the store was not reachable at all (connection refused, closed or not yet open, the
 *   client's retries given up): the call never got an answer because nothing was there to give one;
 * - `error`: the store answered, with an error (a script error, a stale seq, a wrong reply).
 */
export type FailureCause = 'timeout' | 'refused' | 'error';
export const FAILURE_CAUSES: readonly FailureCause[] = ['timeout', 'refused', 'error'];

/** How a failure of each cause other than `error` shows in a thrown error; anything else is `error`. */
interface Signs {
  /** `error.code` (Node's socket errors). */
  codes: readonly string[];
  /** `error.name`. */
  names: readonly string[];
  /** The start of `error.message`. */
  messages: readonly string[];
}

/**
 * Checked in this order. The messages are ioredis 5/6's (node_modules/ioredis/built: Redis.js,
 * cluster/index.js, event_handler.js, Command.js), seen against a killed redis-server in
 * test/gateway/runtime/failure-cause.live.test.ts.
 */
const SIGNS: readonly [Exclude<FailureCause, 'error'>, Signs][] = [
  [
    'refused',
    {
      codes: [
        'ECONNREFUSED',
        'ECONNRESET',
        'ENOTCONN',
        'EPIPE',
        'EHOSTUNREACH',
        'ENETUNREACH',
        'ENOTFOUND',
        'EAI_AGAIN',
      ],
      // every retry on a new connection used up; no cluster node answers
      names: ['MaxRetriesPerRequestError', 'ClusterAllFailedError'],
      messages: [
        'Connection is closed.',
        "Stream isn't writeable",
        "Cluster isn't ready",
        'Cluster is disconnected.',
        'Cluster is disconnecting.',
        'Cluster is ended.',
        'None of startup nodes is available',
        'Command aborted due to connection close',
        'connect ETIMEDOUT',
        'connect ECONNREFUSED',
      ],
    },
  ],
  // ioredis' own commandTimeout: the same fault as storeTimeoutMs running out
  ['timeout', { codes: [], names: [], messages: ['Command timed out'] }],
];

/**
 * The cause of a failed store call: `timedOut` when storeTimeoutMs ran out first (then `connected`,
 * the store client's state at that moment if it knows it, tells a call waiting in an offline queue
 * for a connection that is not there from one the store is slow to answer); otherwise read from the
 * error, its `cause` and an AggregateError's `errors`.
 */
export function failureCause(f: { timedOut: boolean; error?: unknown; connected?: boolean }): FailureCause {
  if (f.timedOut) return f.connected === false ? 'refused' : 'timeout';
  return causeOfError(f.error, 0);
}

function causeOfError(error: unknown, depth: number): FailureCause {
  if (error === null || typeof error !== 'object' || depth > 4) return 'error';
  const e = error as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  for (const [cause, s] of SIGNS) {
    if (typeof e.code === 'string' && s.codes.includes(e.code)) return cause;
    if (typeof e.name === 'string' && s.names.includes(e.name)) return cause;
    const m = e.message;
    if (typeof m === 'string' && s.messages.some((p) => m.startsWith(p))) return cause;
  }
  const inner = [e.cause, ...(Array.isArray(e.errors) ? e.errors : [])];
  for (const x of inner) {
    const c = causeOfError(x, depth + 1);
    if (c !== 'error') return c;
  }
  return 'error';
}
