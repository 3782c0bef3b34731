// The engine's parts are in engine/ (see engine/index.ts); this path stays for its importers.

export type { FleetParams } from '../designs/key-limiter.js';
export * from './engine/index.js';
