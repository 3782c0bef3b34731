/**
 * Erlang B: the probability that a loss system with `servers` servers and offered load `erlangs`
 * turns an arrival away. A sliding-window log with limit L and window W serving Poisson arrivals is
 * exactly such a system (L servers, every admit holds one for W), so the central log rejects a steady
 * client at B(L, load·L). Computed with the stable recurrence B(0) = 1, B(n) = aB(n−1) / (n + aB(n−1)).
 */
export function erlangB(servers: number, erlangs: number): number {
  let b = 1;
  for (let n = 1; n <= servers; n++) b = (erlangs * b) / (n + erlangs * b);
  return b;
}
