/**
 * A step between the log and the engine (--spread, --attack): arrivals in time order in, arrivals in
 * time order out. Synchronous, so a pipeline of them costs one await per arrival (the reader's), not
 * one per step: an async generator layer costs every arrival a promise.
 */
import type { Arrival, ArrivalSource } from '../arrival.js';

export type Emit = (a: Arrival) => void;

export interface Stage {
  push(a: Arrival, emit: Emit): void;
  /** The stream has ended: emit what is held. */
  end(emit: Emit): void;
}

/** The function that feeds stages[from] (and on through the rest) into `sink`. */
function chain(stages: readonly Stage[], from: number, sink: Emit): Emit {
  let emit = sink;
  for (let i = stages.length - 1; i >= from; i--) {
    const stage = stages[i];
    const next = emit;
    emit = (a) => stage.push(a, next);
  }
  return emit;
}

/** Ends the stages in order, each one's held arrivals going through the stages after it. */
function endAll(stages: readonly Stage[], sink: Emit): void {
  for (let i = 0; i < stages.length; i++) stages[i].end(chain(stages, i + 1, sink));
}

/** Runs a source through stages (first to last) into `sink`. */
export async function drain(
  source: AsyncIterable<Arrival>,
  stages: readonly Stage[],
  sink: Emit,
): Promise<void> {
  const emit = chain(stages, 0, sink);
  for await (const a of source) emit(a);
  endAll(stages, sink);
}

/** Runs a whole source through stages into `sink`, a batch at a time when the source has batches. */
export async function drainSource(
  source: ArrivalSource,
  stages: readonly Stage[],
  sink: Emit,
): Promise<void> {
  if (source.batches === undefined) return drain(source.arrivals, stages, sink);
  const emit = chain(stages, 0, sink);
  for await (const batch of source.batches) for (let i = 0; i < batch.length; i++) emit(batch[i]);
  endAll(stages, sink);
}

/** A source through stages as an async iterable, streaming (tests, and callers that want one). */
export async function* staged(
  source: AsyncIterable<Arrival>,
  stages: readonly Stage[],
): AsyncGenerator<Arrival> {
  const ready: Arrival[] = [];
  const emit = chain(stages, 0, (a) => ready.push(a));
  for await (const a of source) {
    emit(a);
    if (ready.length > 0) {
      yield* ready.splice(0);
    }
  }
  endAll(stages, (a) => ready.push(a));
  yield* ready;
}
