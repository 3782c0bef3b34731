import { type FailureCause, failureCause } from './failure-cause.js';

/** A store call's outcome as a value: the reply, or why there is none. */
export type Settled<T> =
  | { ok: true; value: T }
  | { ok: false; timedOut: boolean; cause: FailureCause; error?: unknown };

/**
 * Races a store call against `ms`. A reply that arrives after the deadline is dropped: by then the
 * caller has already decided without it, and applying it late would mix two views of the store.
 *
 * A timer that fires late (more than LATE_MS past its deadline: the event loop was busy, with a
 * burst of requests say) judges the deadline only after the I/O of the loop turn it fires in
 * (setImmediate runs after the poll phase). Timers run before a turn's I/O, so the timer of a call
 * whose reply has long been waiting on the socket would otherwise fire first and count a store that
 * answered in a millisecond as timed out: the gateway did not read, the store did not fail (issue
 * 32, item 1). A timer on time resolves at once: there is no reply it could have missed.
 * A call that throws synchronously counts as a failed call, never as an exception of the caller.
 * `store.connected()` (AsyncStore.connected), if it has one, is read when the deadline
 * passes: a call that waited on a client with no connection was refused, not slow (see failureCause).
 */
export function withTimeout<T>(
  call: () => Promise<T>,
  ms: number,
  store?: { connected?(): boolean },
): Promise<Settled<T>> {
  const failed = (timedOut: boolean, error?: unknown): Settled<T> => {
    const cause = failureCause({ timedOut, error, connected: timedOut ? store?.connected?.() : undefined });
    return timedOut ? { ok: false, timedOut, cause } : { ok: false, timedOut, cause, error };
  };
  let p: Promise<T>;
  try {
    p = call();
  } catch (error) {
    return Promise.resolve(failed(false, error));
  }
  return new Promise((resolve) => {
    let done = false;
    const timeOut = () => {
      if (done) return;
      done = true;
      resolve(failed(true));
    };
    const due = Date.now() + ms;
    const timer = setTimeout(() => {
      if (done) return;
      if (Date.now() - due > LATE_MS) setImmediate(timeOut);
      else timeOut();
    }, ms);
    p.then(
      (value) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve({ ok: true, value });
      },
      (error: unknown) => {
        // a rejection after the deadline is swallowed here, so it never surfaces as unhandled
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(failed(false, error));
      },
    );
  });
}

/** A timer this late (ms past its deadline) fired after a busy stretch of the event loop (see withTimeout). */
const LATE_MS = 5;
