/**
 * A compile-time check that a list names every field of T: `const X: CoversEvery<T, Listed> = true`
 * type-checks only when no key of T is missing from Listed; otherwise the error names the missing
 * keys. So a field added to T without a place in the list fails the build rather than being dropped.
 */
export type CoversEvery<T, Listed> = [Exclude<keyof T, Listed>] extends [never]
  ? true
  : Exclude<keyof T, Listed>;
