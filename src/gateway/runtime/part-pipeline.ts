/** Parts in flight at once: the next is written while the store works on one (a pipeline). */
export const PIPELINE_PARTS = 2;

/**
 * Sends parts as a pipeline: up to `width` in flight, each sent by `send` (which applies its own
 * timeout and resolves whether the part was answered), in order. After a part fails the rest are not
 * sent (the store is likely away or slow); they and the failed ones are `left`, for the next round, in
 * their order. A `send` that throws (a fault while applying a reply) is handed to `fault` and counts
 * as failed, so its part is kept for its resend like a failed call. Apart from SyncLoop: it knows
 * nothing of syncs, only of order and of how many may be out.
 */
export async function sendPipelined<P>(
  parts: P[],
  send: (part: P) => Promise<boolean>,
  fault: (part: P, error: unknown) => void,
  width = PIPELINE_PARTS,
): Promise<{ answered: number; left: P[] }> {
  const ok = new Array<boolean>(parts.length).fill(false);
  const running = new Set<Promise<void>>();
  let stopped = false;
  let answered = 0;
  for (let i = 0; i < parts.length && !stopped; i++) {
    while (running.size >= width) await Promise.race(running);
    if (stopped) break;
    const settle = (r: boolean) => {
      running.delete(p);
      ok[i] = r;
      if (r) answered++;
      else stopped = true;
    };
    const p: Promise<void> = send(parts[i]).then(settle, (error: unknown) => {
      fault(parts[i], error);
      settle(false);
    });
    running.add(p);
  }
  await Promise.all(running);
  return { answered, left: parts.filter((_, i) => !ok[i]) };
}
