/** Validation of everything a user configures. Errors name the field and the value. */

export const DESIGN_IDS = [
  'central-log',
  'split',
  'shared-counter',
  'assume-others',
  'track-share',
  'leases',
  'leases-ask',
  'adaptive',
] as const;
export type DesignId = (typeof DESIGN_IDS)[number];

export type WindowKind = 'sliding' | 'fixed';

/** The limit one key is held to: at most `limit` admitted in any window of `windowMs`. */
export interface Policy {
  readonly limit: number;
  readonly windowMs: number;
  readonly windowKind: WindowKind;
}

/** Longest key accepted, in UTF-16 code units. Longer keys are bad input, not truncated. */
export const MAX_KEY_LENGTH = 1024;

export class ConfigError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'ConfigError';
  }
}

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return String(v);
  return typeof v;
}

export function requirePositiveInteger(field: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || !Number.isSafeInteger(v)) {
    throw new ConfigError(field, `must be a positive integer, got ${show(v)}`);
  }
  return v;
}

export function requirePositiveFinite(field: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new ConfigError(field, `must be a positive finite number, got ${show(v)}`);
  }
  return v;
}

export function requireDesign(field: string, v: unknown): DesignId {
  if (typeof v !== 'string' || !(DESIGN_IDS as readonly string[]).includes(v)) {
    throw new ConfigError(field, `must be one of ${DESIGN_IDS.join(', ')}; got ${show(v)}`);
  }
  return v as DesignId;
}

export function requireWindowKind(field: string, v: unknown): WindowKind {
  if (v !== 'sliding' && v !== 'fixed') {
    throw new ConfigError(field, `must be "sliding" or "fixed", got ${show(v)}`);
  }
  return v;
}

export function makePolicy(limit: unknown, windowMs: unknown, windowKind: unknown = 'sliding'): Policy {
  return {
    limit: requirePositiveInteger('limit', limit),
    windowMs: requirePositiveFinite('windowMs', windowMs),
    windowKind: requireWindowKind('windowKind', windowKind),
  };
}

/** Throws a KeyError naming the problem; returns the key unchanged. */
export function requireKey(key: unknown): string {
  // the check stays small enough to inline into a request path; the error is built out of line
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) badKey(key);
  return key as string;
}

function badKey(key: unknown): never {
  if (typeof key !== 'string') throw new KeyError(`key must be a string, got ${show(key)}`);
  if (key.length === 0) throw new KeyError('key must not be empty');
  throw new KeyError(`key is ${key.length} characters long; the maximum is ${MAX_KEY_LENGTH}`);
}

export class KeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyError';
  }
}

/** A request's cost in slots: a positive integer. */
export function requireCost(cost: unknown): number {
  if (typeof cost !== 'number' || !Number.isInteger(cost) || cost < 1) badCost(cost);
  return cost as number;
}

function badCost(cost: unknown): never {
  throw new ConfigError('cost', `must be a positive integer, got ${show(cost)}`);
}

/** Time must be a finite number of milliseconds. */
export function requireTime(field: string, now: unknown): number {
  if (typeof now !== 'number' || !Number.isFinite(now)) badTime(field, now);
  return now as number;
}

function badTime(field: string, now: unknown): never {
  throw new ConfigError(field, `must be a finite time in milliseconds, got ${show(now)}`);
}
