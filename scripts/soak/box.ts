import { readFileSync } from 'node:fs';

/**
 * The box's CPU time from /proc/stat (Linux), read every 100 ms by the coordinator: steal (time the
 * hypervisor ran something else while a vCPU of ours wanted to run) and idle, to tell what a stall
 * owed to the machine. A guest thread stalled by steal neither runs nor waits in the guest's run
 * queue: only this shows it. USER_HZ is 100 on Linux: a tick is 10 ms.
 */
export class BoxCpu {
  private readonly t: number[] = [];
  private readonly steal: number[] = [];
  private readonly idle: number[] = [];
  private readonly total: number[] = [];
  private timer: ReturnType<typeof setInterval> | null = null;

  start(everyMs = 100): this {
    if (read() === null) return this;
    this.record();
    this.timer = setInterval(() => this.record(), everyMs);
    return this;
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private record(): void {
    const r = read();
    if (r === null) return;
    this.t.push(Date.now());
    this.steal.push(r.steal);
    this.idle.push(r.idle);
    this.total.push(r.total);
  }

  /** Steal over [a, b] (epoch ms), summed over the CPUs, in ms; the readings that bracket it (±100 ms). */
  stealMs(a: number, b: number): number | null {
    const i = this.before(a);
    const j = this.after(b);
    if (i < 0 || j < 0) return null;
    return (this.steal[j] - this.steal[i]) * TICK_MS;
  }

  /** Over the whole run: steal and busy (not idle) time as % of all CPU time. */
  summary(): { stealPct: number; busyPct: number; cpus: number } | null {
    const n = this.t.length;
    if (n < 2) return null;
    const tot = this.total[n - 1] - this.total[0];
    return {
      stealPct: (100 * (this.steal[n - 1] - this.steal[0])) / Math.max(1, tot),
      busyPct: (100 * (tot - (this.idle[n - 1] - this.idle[0]))) / Math.max(1, tot),
      cpus: Math.round(tot / Math.max(1, (this.t[n - 1] - this.t[0]) / TICK_MS)),
    };
  }

  private before(at: number): number {
    let k = -1;
    for (let i = 0; i < this.t.length && this.t[i] <= at; i++) k = i;
    return k;
  }

  private after(at: number): number {
    for (let i = 0; i < this.t.length; i++) if (this.t[i] >= at) return i;
    return -1;
  }
}

const TICK_MS = 10;

function read(): { steal: number; idle: number; total: number } | null {
  try {
    const f = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal guest guest_nice; guest time is in user already
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    return { steal: f[7] ?? 0, idle: (f[3] ?? 0) + (f[4] ?? 0), total };
  } catch {
    return null;
  }
}
