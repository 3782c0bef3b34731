/** A store call's outcome as a value: the reply, or why there is none. */
export type Settled<T> = { ok: true; value: T } | { ok: false; timedOut: boolean; error?: unknown };

/**
 * Races a store call against `ms`. A reply that arrives after the deadline is dropped: by then the
 * caller has already decided without it, and applying it late would mix two views of the store.
 * A call that throws synchronously counts as a failed call, never as an exception of the caller.
 */
export function withTimeout<T>(call: () => Promise<T>, ms: number): Promise<Settled<T>> {
  let p: Promise<T>;
  try {
    p = call();
  } catch (error) {
    return Promise.resolve({ ok: false, timedOut: false, error });
  }
  return new Promise((resolve) => {
    let done = false;
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      resolve({ ok: false, timedOut: true });
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
        resolve({ ok: false, timedOut: false, error });
      },
    );
  });
}
