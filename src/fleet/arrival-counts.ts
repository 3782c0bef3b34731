/**
 * A load process's count of its scheduled arrivals: how many were due, sent late, or skipped (the
 * connections full). A skipped arrival is never sent, so it is never a late send: counting it as one
 * made "% on time" ((sent − late) / scheduled) go below 0 on a run the process could not drive.
 */
export class ArrivalCounts {
  scheduled = 0;
  skipped = 0;
  lateSends = 0;

  constructor(private readonly lateAfterMs: number) {}

  /** One arrival due `lateMs` ago; true if it is to be sent (`canSend`: a connection is free). */
  arrive(lateMs: number, canSend: boolean): boolean {
    this.scheduled++;
    if (!canSend) {
      this.skipped++;
      return false;
    }
    if (lateMs > this.lateAfterMs) this.lateSends++;
    return true;
  }
}
