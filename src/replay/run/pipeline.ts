/**
 * A whole replay from a way to open the arrivals: the log's stream (spread by the readers, --spread), with the
 * attacks overlaid (--attack), through the engine; then, when timelines are wanted (--out), a second
 * pass over a fresh stream recording the worst keys, which are known only once the first has ended.
 */

import type { ArrivalSource } from '../arrival.js';
import { type AttackSpec, attackStage } from './attack.js';
import { replay, type TimelineRequest } from './engine.js';
import type { ReplayResult, ReplaySettings } from './result.js';
import type { Stage } from './stage.js';

export interface PipelineOptions {
  attacks: readonly AttackSpec[];
  /** Draw per-key timelines of this many worst keys (0: none, one pass). */
  timelineKeys: number;
}

/** At most this many buckets per timeline, each of a round length (the first that fits). */
const TIMELINE_BUCKETS = 150;
const BUCKETS_MS = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21_600, 43_200, 86_400,
].map((s) => s * 1000);

async function pass(
  open: () => ArrivalSource,
  s: ReplaySettings,
  o: PipelineOptions,
  timeline: TimelineRequest | null,
): Promise<ReplayResult> {
  const source = open();
  const stages = [
    attackStage(o.attacks, { limit: s.limit, windowMs: s.windowMs, gateways: s.gateways, seed: s.seed }),
  ].filter((x): x is Stage => x !== null);
  return replay(source, s, timeline, stages);
}

/** The keys a timeline is drawn for: each design's worst by honest rejections, then by over-admission. */
export function worstKeys(r: ReplayResult, n: number): string[] {
  const keys = new Set<string>();
  for (let rank = 0; keys.size < n && rank < r.settings.top; rank++) {
    for (const t of r.top) {
      for (const list of [t.byHonestRejected, t.byOverAdmitted])
        if (list[rank] !== undefined && keys.size < n) keys.add(list[rank].key);
    }
  }
  return [...keys];
}

export async function runReplay(
  open: () => ArrivalSource,
  s: ReplaySettings,
  o: PipelineOptions,
): Promise<ReplayResult> {
  const first = await pass(open, s, o, null);
  const keys = o.timelineKeys > 0 ? worstKeys(first, o.timelineKeys) : [];
  if (keys.length === 0 || !(first.to >= first.from))
    return o.timelineKeys > 0 ? { ...first, timelines: [] } : first;
  const span = first.to - first.from + 1;
  const bucketMs = BUCKETS_MS.find((b) => span / b <= TIMELINE_BUCKETS) ?? Math.ceil(span / TIMELINE_BUCKETS);
  const second = await pass(open, s, o, {
    keys,
    origin: first.from,
    bucketMs,
    buckets: Math.ceil(span / bucketMs),
  });
  return { ...first, timelines: second.timelines ?? [] };
}
