import { parentPort } from 'node:worker_threads';
import { type GridJob, runJob } from './study.js';

// A worker runs the jobs it is sent, one message per job, and answers with their metrics.
parentPort!.on('message', (job: GridJob) => {
  parentPort!.postMessage({ ids: job.ids, metrics: runJob(job) });
});
