/**
 * Keys per sync request (part), from the store's recent speed, so a part takes about PART_SHARE of
 * the store timeout: a part's round trip is taken as a fixed cost (the shortest recent part under
 * MIN_SAMPLE_KEYS keys, else 0) plus a time per key (the mean of recent parts' past that cost, over
 * parts of at least MIN_SAMPLE_KEYS keys; a timed-out part counts as taking the whole timeout).
 * Before any measurement, FIRST_PART_KEYS.
 */
export class PartSizer {
  /** Recent parts' round trips (ms) and keys, a ring. */
  private readonly samples: { ms: number; keys: number }[] = [];
  private next = 0;

  constructor(private readonly storeTimeoutMs: number) {}

  /** A part of `keys` keys took `ms` (answered), or the whole timeout (timed out). */
  note(ms: number, keys: number): void {
    const ring = this.samples;
    if (ring.length < PART_SAMPLES) ring.push({ ms, keys });
    else ring[this.next] = { ms, keys };
    this.next = (this.next + 1) % PART_SAMPLES;
  }

  /** Keys the next part may carry. */
  keys(): number {
    const ring = this.samples;
    // the fixed cost from small parts only: parts of similar sizes would pass their whole time for it
    let fixed = Number.POSITIVE_INFINITY;
    let shortest = Number.POSITIVE_INFINITY;
    for (const x of ring) {
      if (x.keys < MIN_SAMPLE_KEYS && x.ms < fixed) fixed = x.ms;
      if (x.ms < shortest) shortest = x.ms;
    }
    fixed = Number.isFinite(fixed) ? Math.min(fixed, shortest) : 0;
    let perKey = 0;
    let largest = 0;
    let n = 0;
    for (const x of ring) {
      if (x.keys < MIN_SAMPLE_KEYS) continue;
      perKey += (x.ms - fixed) / x.keys;
      largest = Math.max(largest, x.keys);
      n++;
    }
    if (n === 0) return FIRST_PART_KEYS;
    perKey /= n;
    // no time beyond the fixed cost seen yet: grow by doubling, not at once to the cap
    if (perKey === 0) return Math.min(MAX_PART_KEYS, 2 * largest);
    const keys = Math.floor((PART_SHARE * this.storeTimeoutMs - fixed) / perKey);
    return Math.max(MIN_PART_KEYS, Math.min(MAX_PART_KEYS, keys));
  }
}

/** A sync request (part) is sized to take about this share of storeTimeoutMs. */
const PART_SHARE = 0.25;
/** Keys per part before the store's speed is known. */
const FIRST_PART_KEYS = 1_000;
const MIN_PART_KEYS = 16;
const MAX_PART_KEYS = 20_000;
/** Parts with fewer keys say little about the time per key (their time is mostly the round trip). */
const MIN_SAMPLE_KEYS = 16;
/** Recent parts the size is taken from. */
const PART_SAMPLES = 8;
