/** Small helpers shared by the benchmark parts: medians, child processes, the machine. */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  date: string;
  /** os.loadavg() [1, 5, 15 min] when the bench started and when it ended. */
  loadStart: number[];
  loadEnd?: number[];
}

export function describeMachine(): Machine {
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    date: new Date().toISOString(),
    loadStart: loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

export function load1(): number {
  return Math.round(loadavg()[0] * 100) / 100;
}

/** A TypeScript file of bench/ in a child node (through tsx), its stdout parsed as one JSON value. */
export function runTsChild<T>(file: string, args: string[], timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d.toString();
    });
    child.stderr.on('data', (d) => {
      err += d.toString();
    });
    const timer = setTimeout(() => killChild(child), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`${file} ${args.join(' ')} exited ${code ?? signal}: ${err.slice(-2000)}`));
        return;
      }
      try {
        resolve(JSON.parse(out) as T);
      } catch {
        reject(new Error(`${file} ${args.join(' ')}: output is not JSON: ${out.slice(0, 500)}`));
      }
    });
  });
}

/** SIGTERM to this one child, by its PID. */
export function killChild(child: ChildProcess): void {
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    process.kill(child.pid, 'SIGTERM');
  }
}

export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}
