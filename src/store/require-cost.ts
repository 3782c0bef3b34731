/**
 * A logAdmit's cost: a positive integer. The gateway checks a request's cost before it gets here; a
 * store refuses anything else as a fault, because a count kept beside the log (Redis exact mode)
 * must never take a negative or fractional run.
 */
export function requireCost(cost: number): void {
  if (!Number.isSafeInteger(cost) || cost < 1) {
    throw new RangeError(`logAdmit cost must be a positive integer, got ${cost}`);
  }
}
