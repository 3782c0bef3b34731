/**
 * A stream of batches read one item at a time. An async generator's `yield* batch` cost three
 * promise turns an item (a third of the readers' CPU, read one arrival at a time); here an item
 * already read costs one resolved promise.
 */

/** `batches`' items one at a time, reading the next batch only when one is wanted (and the first only when read). */
export function oneByOne<T>(batches: AsyncIterator<readonly T[]>): AsyncIterableIterator<T> {
  let batch: readonly T[] = [];
  let at = 0;
  let ended = false;
  // a call made while one is waiting for a batch waits behind it, so each gets the next item
  let pending: Promise<IteratorResult<T>> | null = null;

  const slow = async (): Promise<IteratorResult<T>> => {
    while (at >= batch.length) {
      if (ended) return { value: undefined, done: true };
      const r = await batches.next();
      if (r.done === true) {
        ended = true;
        batch = [];
        at = 0;
      } else {
        batch = r.value;
        at = 0;
      }
    }
    return { value: batch[at++] as T, done: false };
  };

  const it: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]: () => it,
    next(): Promise<IteratorResult<T>> {
      if (pending === null && at < batch.length)
        return Promise.resolve({ value: batch[at++] as T, done: false });
      const p: Promise<IteratorResult<T>> = pending === null ? slow() : pending.then(slow, slow);
      pending = p;
      const clear = () => {
        if (pending === p) pending = null;
      };
      p.then(clear, clear);
      return p;
    },
    async return(): Promise<IteratorResult<T>> {
      ended = true;
      batch = [];
      at = 0;
      await batches.return?.();
      return { value: undefined, done: true };
    },
  };
  return it;
}
