import type { AsyncStore } from './contract.js';

/**
 * A store never called: a gateway built only to check its options (fleetlimit validate, the sidecar's
 * named policies) is constructed with it and never started.
 */
export const VALIDATION_STORE: AsyncStore = {
  sync: () => Promise.reject(new Error('validation only')),
  logAdmit: () => Promise.reject(new Error('validation only')),
  ask: () => Promise.reject(new Error('validation only')),
  voidLogAdmits: () => Promise.reject(new Error('validation only')),
  heartbeat: () => Promise.reject(new Error('validation only')),
};
