import type { DesignId, WindowKind } from '../../src/config.js';
import { createGateway, type Gateway } from '../../src/gateway/gateway.js';
import type { ReadsMode } from '../../src/gateway/options.js';
import { boundedSweep } from './bounded-sweep.js';

export interface Event {
  t: number;
  gw: number;
  /** 'req' = one request for the key, 'sync' = that gateway syncs */
  kind: 'req' | 'sync';
}

export interface FleetSetup {
  design: DesignId;
  limit: number;
  windowMs: number;
  windowKind?: WindowKind;
  gateways: number;
  syncMs: number;
  horizonMs?: number;
  /** GatewayOptions.reads (default every-sync) */
  reads?: ReadsMode;
}

/** Runs one key through K gateways on a shared MemoryStore; returns each request's outcome in order. */
export function runFleet(setup: FleetSetup, events: Event[], key = 'k') {
  const store = boundedSweep();
  const gws: Gateway[] = [];
  for (let i = 0; i < setup.gateways; i++) {
    gws.push(createGateway({ id: `gw-${i}`, ...setup, store }));
  }
  const decisions: boolean[] = [];
  const admitted: number[] = [];
  for (const e of events) {
    const gw = gws[e.gw];
    if (e.kind === 'sync') gw.sync(e.t);
    else {
      const d = gw.admit(key, e.t);
      decisions.push(d.allowed);
      if (d.allowed) admitted.push(e.t);
    }
  }
  return { decisions, admitted, store, gws };
}

/** Requests at the given times plus, for each gateway, syncs every syncMs from its phase; merged by time (syncs first on ties). */
export function mergeEvents(
  requests: { t: number; gw: number }[],
  gateways: number,
  syncMs: number,
  phases: number[],
  endMs: number,
): Event[] {
  const events: Event[] = [];
  for (let g = 0; g < gateways; g++) {
    for (let t = phases[g] ?? 0; t <= endMs; t += syncMs) events.push({ t, gw: g, kind: 'sync' });
  }
  for (const r of requests) events.push({ t: r.t, gw: r.gw, kind: 'req' });
  events.sort((a, b) => a.t - b.t || (a.kind === b.kind ? 0 : a.kind === 'sync' ? -1 : 1));
  return events;
}

/** The most admits in any window: any half-open span [t, t+W) for sliding, any aligned window for fixed. */
export function worstWindow(admitted: number[], windowMs: number, kind: WindowKind = 'sliding'): number {
  const ts = [...admitted].sort((a, b) => a - b);
  let best = 0;
  if (kind === 'fixed') {
    const per = new Map<number, number>();
    for (const t of ts) {
      const w = Math.floor(t / windowMs);
      const n = (per.get(w) ?? 0) + 1;
      per.set(w, n);
      if (n > best) best = n;
    }
    return best;
  }
  let lo = 0;
  for (let hi = 0; hi < ts.length; hi++) {
    while (ts[hi] - ts[lo] >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}
