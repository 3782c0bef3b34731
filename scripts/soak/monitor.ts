import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';

/**
 * What one soak process measures about itself: its event loop (monitorEventLoopDelay, per sample
 * interval and over the run), every stall with the CPU the process burnt during it, its long GC
 * pauses, and its heap after a forced GC. Each process — gateway, load, idle sibling — runs one.
 *
 * A stall is a gap between two ticks of a 10 ms timer; `gapMs` is that gap (an idle loop reads ≈ 10).
 * `cpuMs` is the process's CPU time (all its threads) over the gap: a stall our code caused burns
 * about its length in CPU; a process descheduled by a loaded machine burns next to none. All threads
 * is not the event loop, though: GC helpers, the JIT's background compiles and the libuv pool run on
 * the other core while the main thread waits for one. So the main thread is measured apart (Linux
 * schedstat): `mainCpuMs` it ran, `waitMs` it was ready to run and waited for a CPU. The rest of the
 * gap the main thread slept: mostly inside a GC pause, waiting for V8's parallel GC helpers, which on a
 * busy box wait for a CPU in turn; `helperWaitMs` is the longest run-queue wait of any of the process's
 * other threads over the gap.
 */
export interface Stall {
  /** Wall-clock ms (epoch) when the gap began. */
  at: number;
  gapMs: number;
  cpuMs: number;
  /** The main thread's own CPU over the gap; null where /proc/thread-self/schedstat is missing. */
  mainCpuMs: number | null;
  /** How long the main thread was runnable but waiting for a CPU (the run queue); null likewise. */
  waitMs: number | null;
  /** The longest such wait of one of the process's other threads (GC helpers, compilers, libuv); null likewise. */
  helperWaitMs: number | null;
}

export interface GcPause {
  at: number;
  ms: number;
  kind: string;
}

export interface IntervalSample {
  /** Seconds since the monitor started. */
  atS: number;
  /** monitorEventLoopDelay over the interval, ms (resolution 10 ms: an idle loop reads ≈ 10). */
  eldMaxMs: number;
  eldP99Ms: number;
  /** heapUsed after a forced GC, MB; null when this interval took no heap sample. */
  heapMB: number | null;
  /** Process CPU over the interval, % of one core. */
  cpuPct: number;
}

export interface LoopSummary {
  samples: IntervalSample[];
  /** Over the whole run; max is the largest interval max (the forced GCs of the heap samples left out). */
  eld: { p50Ms: number; p99Ms: number; maxMs: number; meanMs: number };
  /** Every gap of at least `recordGapMs`. */
  stalls: Stall[];
  /** The gap in which the process burnt the most CPU: the longest stretch of its own work between two ticks. */
  busiestTick: Stall | null;
  /** GC pauses of at least 10 ms (forced ones left out). */
  gcPauses: GcPause[];
  cpuSeconds: number;
}

const TICK_MS = 10;
const MS = 1e6;

export class LoopMonitor {
  private readonly eld = monitorEventLoopDelay({ resolution: TICK_MS });
  /** Never reset: the run's percentiles (a forced GC adds one reading each, too few to move a p99). */
  private readonly total = monitorEventLoopDelay({ resolution: TICK_MS });
  private maxMs = 0;
  private readonly stalls: Stall[] = [];
  private readonly gcPauses: GcPause[] = [];
  private readonly samples: IntervalSample[] = [];
  private busiest: Stall | null = null;
  private readonly started = performance.now();
  private readonly cpu0 = process.cpuUsage();
  private readonly sched = new ThreadSched();
  private lastTick = performance.now();
  private lastCpu = cpuMs();
  private lastSched = this.sched.read();
  private intervalCpu = cpuMs();
  private intervalAt = performance.now();
  /** performance.now() spans of the forced GCs: their gc entries arrive later and are left out. */
  private readonly forced: [number, number][] = [];
  private readonly ticker: ReturnType<typeof setInterval>;
  private readonly gcObserver: PerformanceObserver;

  constructor(private readonly recordGapMs = 25) {
    this.eld.enable();
    this.total.enable();
    this.ticker = setInterval(() => this.tick(), TICK_MS);
    this.gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        if (e.duration < 10 || this.forced.some(([a, b]) => e.startTime >= a && e.startTime <= b)) continue;
        const kind = (e as { detail?: { kind?: number } }).detail?.kind;
        this.gcPauses.push({
          at: Math.round(performance.timeOrigin + e.startTime),
          ms: e.duration,
          kind: gcKind(kind),
        });
      }
    });
    this.gcObserver.observe({ entryTypes: ['gc'] });
  }

  private tick(): void {
    const t = performance.now();
    const c = cpuMs();
    const sc = this.sched.read();
    const gap = t - this.lastTick;
    const cpu = c - this.lastCpu;
    if (gap >= this.recordGapMs || cpu > (this.busiest?.cpuMs ?? 0)) {
      const s: Stall = {
        at: Math.round(performance.timeOrigin + this.lastTick),
        gapMs: gap,
        cpuMs: cpu,
        mainCpuMs: sc === null || this.lastSched === null ? null : sc.cpuMs - this.lastSched.cpuMs,
        waitMs: sc === null || this.lastSched === null ? null : sc.waitMs - this.lastSched.waitMs,
        helperWaitMs: sc === null || this.lastSched === null ? null : longestWait(this.lastSched, sc),
      };
      if (gap >= this.recordGapMs) this.stalls.push(s);
      if (cpu > (this.busiest?.cpuMs ?? 0)) this.busiest = s;
    }
    this.lastTick = t;
    this.lastCpu = c;
    this.lastSched = sc;
  }

  /**
   * Closes a sample interval. With `heap`, forces a full GC for the heap figure; the pause that GC
   * makes is the soak's own doing, so it is left out of the delay histogram and of the stall list.
   */
  sample(heap: boolean): IntervalSample {
    const now = performance.now();
    const c = cpuMs();
    const s: IntervalSample = {
      atS: (now - this.started) / 1000,
      eldMaxMs: this.eld.count > 0 ? this.eld.max / MS : 0,
      eldP99Ms: this.eld.count > 0 ? this.eld.percentile(99) / MS : 0,
      heapMB: null,
      cpuPct: (100 * (c - this.intervalCpu)) / Math.max(1, now - this.intervalAt),
    };
    this.maxMs = Math.max(this.maxMs, s.eldMaxMs);
    if (heap) {
      const t0 = performance.now();
      s.heapMB = forcedGcHeapMB();
      this.forced.push([t0, performance.now()]);
      if (this.forced.length > 8) this.forced.shift();
    }
    // reset after the forced GC: the timer tick it delayed is dropped with it (reset clears the
    // histogram's previous-tick mark), and the stall ticker starts from here
    this.sched.listThreads();
    this.eld.reset();
    this.lastTick = performance.now();
    this.lastCpu = cpuMs();
    this.lastSched = this.sched.read();
    this.intervalCpu = this.lastCpu;
    this.intervalAt = this.lastTick;
    this.samples.push(s);
    return s;
  }

  summary(): LoopSummary {
    if (this.eld.count > 0) this.maxMs = Math.max(this.maxMs, this.eld.max / MS);
    const h = this.total;
    const u = process.cpuUsage(this.cpu0);
    return {
      samples: this.samples,
      eld: {
        p50Ms: h.count > 0 ? h.percentile(50) / MS : 0,
        p99Ms: h.count > 0 ? h.percentile(99) / MS : 0,
        maxMs: this.maxMs,
        meanMs: h.count > 0 ? h.mean / MS : 0,
      },
      stalls: this.stalls,
      busiestTick: this.busiest,
      gcPauses: this.gcPauses,
      cpuSeconds: (u.user + u.system) / 1e6,
    };
  }

  stop(): void {
    clearInterval(this.ticker);
    this.eld.disable();
    this.total.disable();
    this.gcObserver.disconnect();
  }
}

interface SchedReading {
  cpuMs: number;
  waitMs: number;
  /** Run-queue wait of each other thread, ms, by thread id. */
  others: Map<string, number>;
}

/**
 * Run time and run-queue wait of the process's threads from /proc/<pid>/task/<tid>/schedstat (Linux;
 * "run ns, wait ns, slices"): the main thread (the one that opens it: the event loop) apart, and every
 * other one's wait. A read is a few µs per thread; null where schedstat is missing.
 */
class ThreadSched {
  private readonly main: number | null;
  private others = new Map<string, number>();
  private readonly buf = Buffer.alloc(128);

  constructor() {
    this.main = openOrNull('/proc/thread-self/schedstat');
    this.listThreads();
  }

  /** Threads come and go (libuv's pool starts on first use): re-listed at every sample. */
  listThreads(): void {
    if (this.main === null) return;
    let tids: string[] = [];
    try {
      tids = readdirSync('/proc/self/task').filter((t) => t !== String(process.pid));
    } catch {
      return;
    }
    const next = new Map<string, number>();
    for (const t of tids) {
      const fd = this.others.get(t) ?? openOrNull(`/proc/self/task/${t}/schedstat`);
      if (fd !== null) next.set(t, fd);
    }
    for (const [t, fd] of this.others) if (!next.has(t)) closeSync(fd);
    this.others = next;
  }

  read(): SchedReading | null {
    if (this.main === null) return null;
    const [run, wait] = this.fields(this.main) ?? [0, 0];
    const others = new Map<string, number>();
    for (const [t, fd] of this.others) {
      const f = this.fields(fd);
      if (f !== null) others.set(t, f[1]);
    }
    return { cpuMs: run, waitMs: wait, others };
  }

  private fields(fd: number): [number, number] | null {
    try {
      const n = readSync(fd, this.buf, 0, this.buf.length, 0);
      const [run, wait] = this.buf.toString('latin1', 0, n).split(' ');
      return [Number(run) / 1e6, Number(wait) / 1e6];
    } catch {
      return null; // the thread ended
    }
  }
}

function openOrNull(path: string): number | null {
  try {
    return openSync(path, 'r');
  } catch {
    return null;
  }
}

function longestWait(a: SchedReading, b: SchedReading): number {
  let m = 0;
  for (const [t, w] of b.others) {
    const w0 = a.others.get(t);
    if (w0 !== undefined && w - w0 > m) m = w - w0;
  }
  return m;
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function forcedGcHeapMB(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return process.memoryUsage().heapUsed / 2 ** 20;
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

function gcKind(kind: number | undefined): string {
  switch (kind) {
    case perfConstants.NODE_PERFORMANCE_GC_MAJOR:
      return 'major';
    case perfConstants.NODE_PERFORMANCE_GC_MINOR:
      return 'minor';
    case perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL:
      return 'incremental';
    case perfConstants.NODE_PERFORMANCE_GC_WEAKCB:
      return 'weakcb';
    default:
      return String(kind);
  }
}
