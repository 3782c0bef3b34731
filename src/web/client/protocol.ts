import type { RunMetrics, RunParams } from '../../sim/types.js';
import type { TimelinePoint } from '../timeline.js';

/** The page → worker message: one run. */
export interface JobRequest {
  id: number;
  params: RunParams;
  /** also return admitted per window over time */
  timeline: boolean;
}

/** The worker → page message: the run's metrics, or why it failed. */
export interface JobReply {
  id: number;
  metrics?: RunMetrics;
  points?: TimelinePoint[];
  error?: string;
}
