/// <reference lib="dom" />
import { runSimulation } from '../../sim/engine.js';
import type { RunParams } from '../../sim/types.js';
import { runWithAdmits, slidingCounts, timelineStepMs } from '../timeline.js';
import type { JobReply, JobRequest } from './protocol.js';

// A dedicated worker: one run per message, answered with its metrics (and the timeline if asked).
const scope = self as unknown as {
  onmessage: ((e: MessageEvent<JobRequest>) => void) | null;
  postMessage(m: JobReply): void;
};

function run(params: RunParams, timeline: boolean): Omit<JobReply, 'id'> {
  if (!timeline) return { metrics: runSimulation(params) };
  const { metrics, admits } = runWithAdmits(params);
  const W = params.windowS * 1000;
  const end = params.minutes * 60_000;
  // the decisions are not sent back: the page needs only the numbers and the curve
  const { decisions: _, ...rest } = metrics;
  return { metrics: rest, points: slidingCounts(admits, W, params.limit, end, timelineStepMs(W, end)) };
}

scope.onmessage = (e) => {
  const { id, params, timeline } = e.data;
  try {
    scope.postMessage({ id, ...run(params, timeline) });
  } catch (err) {
    scope.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
};
