import { parentPort } from 'node:worker_threads';
import { simulateRun } from './many-keys.js';
import type { RunParams } from './types.js';

// A worker runs the runs it is sent, one message per run, and answers with the metrics.
parentPort!.on('message', (msg: { id: number; params: RunParams }) => {
  parentPort!.postMessage({ id: msg.id, metrics: simulateRun(msg.params) });
});
