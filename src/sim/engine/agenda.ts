import { EventTree } from './event-tree.js';
import type { RunState } from './run-state.js';
import type { Traffic } from './traffic.js';

/**
 * What happens next in a run: an event tree with one leaf per gateway (its next arrival, flood
 * arrival, sync or reply, whichever comes first), then the page-load stream and the store watch
 * (parked lease gateways), only those a run uses (a shallower tree). The leaves keep their order, so
 * equal times resolve the same.
 */
export class Agenda {
  readonly tree: EventTree;
  /** the page-load stream's leaf (−1: no page loads) */
  readonly pageloadLeaf: number;
  /** the store watch's leaf (−1: not a lease design) */
  readonly watchLeaf: number;
  /** replies in flight and flood arrivals exist only with real syncs and mixed traffic (else Infinity) */
  private readonly extraEvents: boolean;
  private readonly nextArr: Float64Array;
  private readonly nextSync: Float64Array;
  private readonly replyAt: Float64Array;
  private readonly nextFlood: Float64Array;

  constructor(run: RunState, traffic: Traffic) {
    const K = run.K;
    const pageload = traffic.pageload;
    const watch = run.design.grants;
    this.pageloadLeaf = pageload ? K : -1;
    this.watchLeaf = watch ? K + (pageload ? 1 : 0) : -1;
    this.tree = new EventTree(K + (pageload ? 1 : 0) + (watch ? 1 : 0));
    this.extraEvents = run.realSync || traffic.mixed;
    this.nextArr = run.nextArr;
    this.nextSync = run.clock.nextSync;
    this.replyAt = run.replyAt;
    this.nextFlood = run.nextFlood;
  }

  /** Puts g's next event in the tree again (after any of its times changed). */
  refresh(g: number): void {
    this.tree.set(
      g,
      this.extraEvents
        ? Math.min(this.nextArr[g], this.nextSync[g], this.replyAt[g], this.nextFlood[g])
        : Math.min(this.nextArr[g], this.nextSync[g]),
    );
  }
}
