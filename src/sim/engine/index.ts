export { decisionsIgnoreSync, runAcrossSyncIntervals } from './across-sync.js';
export { type EngineOptions, type RunOutput, runSimulation } from './simulate.js';
export { ONSET_AFTER_WINDOWS, PULSE_EVERY_MS, PULSE_ON_MS, routingWeights } from './traffic.js';
