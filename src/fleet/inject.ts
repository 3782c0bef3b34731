import type { Injection } from './settings.js';

/** A fault injection as `--inject` writes it (the table's label). */
export function describeInjection(f: Injection): string {
  if (f.kind === 'latency') return `latency=${f.ms}ms`;
  if (f.kind === 'loss') return `loss=${+(f.fraction * 100).toFixed(3)}%/${f.holdMs}ms`;
  return `down=${f.forMs / 1000}s@${f.atMs / 1000}s`;
}
