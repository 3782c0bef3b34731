import { type ChildProcess, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The child processes of one run, each tracked by PID so that the end of the run — normal, an error
 * or SIGINT — ends exactly the processes it started, and nothing else.
 */
export class ProcessSet {
  private readonly children = new Map<number, { name: string; proc: ChildProcess }>();

  /** Forks one of this folder's `*-process` modules with `config` as its one argument (JSON). */
  fork(module: string, name: string, config: unknown, execArgv: string[] = []): ChildProcess {
    return this.forkFile(entryOf(module), name, config, execArgv);
  }

  /** Forks a module by path (a .ts one runs under tsx's loader), with extra node flags. */
  forkFile(path: string, name: string, config: unknown, execArgv: string[] = []): ChildProcess {
    const loader = path.endsWith('.ts') ? ['--import', tsxLoader()] : [];
    const proc = fork(path, [JSON.stringify(config)], {
      execArgv: [...new Set([...loader, ...execArgv])],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    if (proc.pid === undefined) throw new Error(`could not start the ${name} process`);
    const pid = proc.pid;
    this.children.set(pid, { name, proc });
    proc.once('exit', () => this.children.delete(pid));
    return proc;
  }

  /** Registers a process started elsewhere (redis-server) so stopAll ends it too. */
  adopt(proc: ChildProcess, name: string): void {
    if (proc.pid === undefined) return;
    const pid = proc.pid;
    this.children.set(pid, { name, proc });
    proc.once('exit', () => this.children.delete(pid));
  }

  get pids(): number[] {
    return [...this.children.keys()];
  }

  /** SIGTERM to every child still running, by PID; SIGKILL to those not gone after graceMs. */
  async stopAll(graceMs = 3000): Promise<void> {
    const live = [...this.children.entries()];
    await Promise.all(live.map(([pid, c]) => stopByPid(pid, c.proc, graceMs)));
  }
}

export function exited(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => proc.once('exit', () => resolve()));
}

export async function stopByPid(pid: number, proc: ChildProcess, graceMs: number): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const gone = exited(proc);
  signal(pid, 'SIGTERM');
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((r) => {
    timer = setTimeout(() => r('late'), graceMs);
  });
  if ((await Promise.race([gone, late])) === 'late') {
    signal(pid, 'SIGKILL');
    await gone;
  }
  clearTimeout(timer);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (err) {
    // ESRCH: it exited between the check and the signal
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/**
 * Where a child module lives: beside this file, compiled (.js under dist/) or as TypeScript when this
 * file runs from src/ (tests, tsx), in which case the child needs tsx's loader too.
 */
function entryOf(module: string): string {
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  return fileURLToPath(new URL(`./${module}.${ext}`, import.meta.url));
}

function tsxLoader(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
}

/** The next message of `type` from a child; rejects if it exits first or after timeoutMs. */
export function nextMessage<T extends { type: string }>(
  proc: ChildProcess,
  type: T['type'],
  what: string,
  timeoutMs: number,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: unknown) => {
      if (typeof m === 'object' && m !== null && (m as { type?: unknown }).type === type) {
        done();
        resolve(m as T);
      }
    };
    const onExit = (code: number | null, sig: NodeJS.Signals | null) => {
      done();
      reject(new Error(`${what} exited (${sig ?? `code ${code}`}) before sending '${type}'`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`${what} sent no '${type}' within ${timeoutMs} ms`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      proc.off('message', onMessage);
      proc.off('exit', onExit);
    };
    proc.on('message', onMessage);
    proc.once('exit', onExit);
  });
}

/** In a child: its config (argv[2]), and an exit when the coordinator goes away so no child outlives it. */
export function childSetup<C>(): C {
  process.on('disconnect', () => process.exit(0));
  process.on('SIGINT', () => {
    // the coordinator handles Ctrl-C and ends us by PID; dying first would lose the report
  });
  return JSON.parse(process.argv[2] ?? '{}') as C;
}

export function send(msg: unknown): void {
  process.send?.(msg);
}

/** CPU time (user + system) this process used since `start` (a process.cpuUsage() reading), ms. */
export function cpuSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

/** Wall-clock ms with sub-millisecond resolution, comparable across processes on this machine. */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}
