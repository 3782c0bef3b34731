export {
  checkAlignedFixedWindow,
  checkErlang,
  checkLeaseViolations,
  checkSingleGatewayEquivalence,
} from './checks.js';
export { type EngineOptions, type RunOutput, routingWeights, runSimulation } from './engine.js';
export { erlangB } from './erlang.js';
export { buildGrid, filterGrid, type GridName, type GridRun, parseOnly } from './grid.js';
export { Random } from './random.js';
export { METRIC_KEYS, type MultiSeedResult, runSeeds, VERSION } from './run.js';
export { runGrid, runStudy, type StudyOptions } from './study.js';
export type * from './types.js';
