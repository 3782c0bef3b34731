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
  'adaptive-early',
] as const;
export type DesignId = (typeof DESIGN_IDS)[number];

export type WindowKind = 'sliding' | 'fixed';

/**
 * The limit one key is held to: at most `limit` admitted in any window of `windowMs`. A store keeps
 * each policy's counts apart (see `policyTag`): the same key string under two policies is two counters.
 */
export interface Policy {
  readonly limit: number;
  readonly windowMs: number;
  readonly windowKind: WindowKind;
  /**
   * A name for the policy (`free`, `pro`): part of its identity in the store, beside the numbers, and
   * the name in the RateLimit headers. 1 to 64 characters of A–Z, a–z, 0–9, `_`, `-`, `.`, `~`
   * (safe in a Redis key name and in a header). @default none (the numbers alone identify it)
   */
  readonly name?: string;
}

/** A policy name: 1 to 64 of A–Z a–z 0–9 _ - . ~ (no separator of the store's key names, no quoting in headers). */
export const POLICY_NAME = /^[A-Za-z0-9_.~-]{1,64}$/;

export function requirePolicyName(field: string, v: unknown): string {
  if (typeof v !== 'string' || !POLICY_NAME.test(v)) {
    throw new ConfigError(field, `must be 1 to 64 characters of A-Z, a-z, 0-9, _, -, ., ~; got ${show(v)}`);
  }
  return v;
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

/**
 * Several bad fields at once, so a configuration is fixed in one go: one line per error. It is a
 * ConfigError too, named after the first field.
 */
export class ConfigErrors extends ConfigError {
  constructor(readonly errors: readonly ConfigError[]) {
    super(errors[0].field, errors[0].message.slice(errors[0].field.length + 2));
    this.message = errors.map((e) => e.message).join('\n');
    this.name = 'ConfigErrors';
  }
}

/**
 * Collects the ConfigErrors of independent checks instead of stopping at the first; `done` throws
 * them all (one ConfigError as itself). Any other exception is a fault and goes straight through.
 */
export class ConfigChecks {
  readonly errors: ConfigError[] = [];

  /** The check's value, or undefined when it failed (its error is kept). */
  check<T>(f: () => T): T | undefined {
    try {
      return f();
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      if (e instanceof ConfigErrors) this.errors.push(...e.errors);
      else this.errors.push(e);
      return undefined;
    }
  }

  get ok(): boolean {
    return this.errors.length === 0;
  }

  done(): void {
    if (this.errors.length === 1) throw this.errors[0];
    if (this.errors.length > 1) throw new ConfigErrors(this.errors);
  }
}

/**
 * The longest window: 2^31 − 1 ms (24.8 days). A Node timer takes at most that (a longer one fires
 * after 1 ms), and the runtime sets timers up to Δ <= W and staleAfterMs <= W; the stores add W to
 * epoch milliseconds, exact in doubles and in Redis's integers far past it. 1e300 broke every sync.
 */
export const MAX_WINDOW_MS = 2 ** 31 - 1;
/** The longest timer Node sets (see MAX_WINDOW_MS); also bounds storeTimeoutMs. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * The shortest sync interval. Node's timers count whole milliseconds (a shorter interval runs every
 * 1 ms, as fast as the event loop goes: 0.01 ran 675 syncs/s); a whole Δ of 1 ms is already a sync
 * per millisecond per gateway.
 */
export const MIN_SYNC_MS = 1;
/**
 * The shortest store timeout. Node's timers count whole milliseconds (a shorter one fires after
 * 1 ms anyway), and no store call is answered within 0.001 ms: every call timed out, and the gateway
 * ran on its fail mode with the store healthy.
 */
export const MIN_STORE_TIMEOUT_MS = 1;
/**
 * The most gateways one limit is shared by (`gateways`, `initialGateways`). Each syncs with the store
 * every Δ: 10,000 at Δ = 1 s is already 10,000 syncs a second on one store, and the designs' shares
 * L/K are a hundredth of a request for L = 100. A larger K is a typo (1e9 was accepted).
 */
export const MAX_GATEWAYS = 10_000;

/** An unknown option name (a typo such as `syncMS`) is refused, never ignored. */
export function requireKnownFields(
  where: string,
  o: Record<string, unknown>,
  fields: readonly string[],
  checks: ConfigChecks,
): void {
  for (const k of Object.keys(o)) {
    if (fields.includes(k)) continue;
    const name = where === '' ? k : `${where}.${k}`;
    checks.errors.push(new ConfigError(name, `is not an option; expected one of ${fields.join(', ')}`));
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

export function requireWindowMs(field: string, v: unknown): number {
  const w = requirePositiveFinite(field, v);
  if (w > MAX_WINDOW_MS) {
    throw new ConfigError(field, `must be at most ${MAX_WINDOW_MS} ms (2^31 − 1, 24.8 days), got ${w}`);
  }
  return w;
}

/** Every field is checked; all bad ones are reported together (ConfigErrors). */
export function makePolicy(
  limit: unknown,
  windowMs: unknown,
  windowKind: unknown = 'sliding',
  name?: unknown,
): Policy {
  const c = new ConfigChecks();
  const policy: { -readonly [F in keyof Policy]: Policy[F] | undefined } = {
    limit: c.check(() => requirePositiveInteger('limit', limit)),
    windowMs: c.check(() => requireWindowMs('windowMs', windowMs)),
    windowKind: c.check(() => requireWindowKind('windowKind', windowKind)),
  };
  // no `name` property at all when none is given: a policy object keeps one shape
  if (name !== undefined) policy.name = c.check(() => requirePolicyName('name', name));
  c.done();
  return policy as Policy;
}

/** Throws a KeyError naming the problem; returns the key unchanged. */
export function requireKey(key: unknown): string {
  // the check stays small enough to inline into a request path; the error is built out of line
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) badKey(key);
  return key as string;
}

/** What is wrong with a request's key, or null if nothing is (the middleware answers it as a 400). */
export function keyProblem(key: unknown): string | null {
  if (typeof key !== 'string') return `key must be a string, got ${show(key)}`;
  if (key.length === 0) return 'key must not be empty';
  if (key.length > MAX_KEY_LENGTH) {
    return `key is ${key.length} characters long; the maximum is ${MAX_KEY_LENGTH}`;
  }
  return null;
}

function badKey(key: unknown): never {
  throw new KeyError(keyProblem(key) ?? 'key is not valid');
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

/** What is wrong with a request's cost, or null if nothing is (the middleware answers it as a 400). */
export function costProblem(cost: unknown): string | null {
  if (typeof cost === 'number' && Number.isInteger(cost) && cost >= 1) return null;
  return `cost must be a positive integer, got ${show(cost)}`;
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
