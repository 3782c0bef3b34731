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
 * burst of requests say) did not measure the store: timers run before a turn's I/O, so the reply may
 * have been waiting on the socket all along (issue 32, item 1: the gateway did not read, the store did
 * not fail). Such a call ends only after that turn's I/O (setImmediate), so a reply already read is
 * taken. With `late: 'renew'` (the sync loop's calls, off the request path) it gets its timeout once
 * more instead, from the moment the loop could look: a reply behind the burst's callbacks, or
 * unpacked in slices, still lands (once: a loop stalled again by then ends it after that turn's I/O).
 * A request must not wait much past its timeout, so request-path calls take 'turn'. A timer on time
 * ends the call at once, as before.
 */
export function withTimeout<T>(
  call: () => Promise<T>,
  ms: number,
  store?: { connected?(): boolean },
  late: 'turn' | 'renew' = 'turn',
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
    let again = late === 'turn';
    const timeOut = () => {
      if (done) return;
      done = true;
      resolve(failed(true));
    };
    let due = Date.now() + ms;
    const fire = () => {
      if (done) return;
      if (Date.now() - due <= LATE_MS) return timeOut();
      if (!again) {
        again = true;
        due = Date.now() + ms;
        timer = setTimeout(fire, ms);
        return;
      }
      setImmediate(timeOut);
    };
    let timer = setTimeout(fire, ms);
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
