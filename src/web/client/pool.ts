/// <reference lib="dom" />
import type { RunParams } from '../../sim/types.js';
import type { JobReply } from './protocol.js';

export interface Job {
  params: RunParams;
  timeline: boolean;
}

/**
 * A few simulation workers. `run` replaces whatever was running: a worker still busy with the old batch
 * is terminated rather than waited for, so a control can move while a long run is under way.
 */
export class WorkerPool {
  private workers: { w: Worker; busy: boolean }[] = [];
  private queue: { id: number; job: Job }[] = [];
  private nextId = 0;
  private handlers = new Map<number, (r: JobReply) => void>();

  constructor(
    private readonly url: string,
    size: number,
  ) {
    for (let i = 0; i < size; i++) this.workers.push(this.spawn());
  }

  private spawn(): { w: Worker; busy: boolean } {
    const slot = { w: new Worker(this.url), busy: false };
    slot.w.onmessage = (e: MessageEvent<JobReply>) => {
      slot.busy = false;
      const h = this.handlers.get(e.data.id);
      this.handlers.delete(e.data.id);
      h?.(e.data);
      this.feed();
    };
    return slot;
  }

  /** Runs the jobs; onResult gets each in finishing order, with its index in `jobs`. */
  run(jobs: Job[], onResult: (index: number, reply: JobReply) => void): void {
    this.queue = [];
    this.handlers.clear();
    this.workers = this.workers.map((slot) => {
      if (!slot.busy) return slot;
      slot.w.terminate();
      return this.spawn();
    });
    jobs.forEach((job, index) => {
      const id = this.nextId++;
      this.queue.push({ id, job });
      this.handlers.set(id, (r) => onResult(index, r));
    });
    this.feed();
  }

  private feed(): void {
    for (const slot of this.workers) {
      if (slot.busy) continue;
      const next = this.queue.shift();
      if (next === undefined) return;
      slot.busy = true;
      slot.w.postMessage({ id: next.id, params: next.job.params, timeline: next.job.timeline });
    }
  }
}
