import { type FSWatcher, statSync, watch } from 'node:fs';
import { dirname } from 'node:path';
import type { EnvoyLimits, ReloadSummary } from './envoy-limits.js';
import { EnvoyConfigError, type EnvoyRlsConfig, readEnvoyConfig } from './envoy-yaml.js';

/**
 * Re-reads the envoyproxy/ratelimit files at `path` and puts them in force. A bad file (or a limit
 * that cannot be a gateway) leaves the configuration in force as it was, as that service does, and is
 * reported line by line through `log`. Resolves with what changed, or null when nothing was applied;
 * never rejects.
 */
export async function reloadEnvoyConfig(
  path: string,
  limits: EnvoyLimits,
  log: (line: string) => void,
  read: (path: string) => EnvoyRlsConfig = readEnvoyConfig,
): Promise<ReloadSummary | null> {
  try {
    const s = await limits.apply(read(path));
    log(`reloaded ${path}: ${s.kept} limits kept their counts, ${s.added} new, ${s.removed} removed`);
    return s;
  } catch (e) {
    // never thrown: a reload runs from a signal or a watcher, where nothing would catch it
    if (!(e instanceof EnvoyConfigError)) {
      log(`not reloaded: ${e instanceof Error ? e.message : String(e)}; the limits in force are unchanged`);
      return null;
    }
    for (const i of e.issues) log(`${i.file}:${i.line}: ${i.field}: ${i.message}`);
    log(`not reloaded: ${path} has ${e.issues.length} problem(s); the limits in force are unchanged`);
    return null;
  }
}

export type WatchFn = (
  path: string,
  listener: () => void,
  onError: (err: Error) => void,
) => Pick<FSWatcher, 'close'>;

/** fs.watch, its errors (the directory removed, too many watchers) passed on rather than thrown. */
const fsWatch: WatchFn = (path, listener, onError) => watch(path, listener).on('error', onError);

/**
 * Calls `onChange` once a burst of changes under `path` has settled for `debounceMs` (an editor's
 * save or a ConfigMap's symlink swap is several events). A file is watched through its directory, so
 * a file replaced by a rename (as editors and Kubernetes do) is still seen.
 */
export function watchEnvoyConfig(
  path: string,
  onChange: () => void,
  debounceMs = 200,
  watchFn: WatchFn = fsWatch,
  onError: (err: Error) => void = () => {},
): { close(): void } {
  const dir = statSync(path).isDirectory() ? path : dirname(path);
  let timer: ReturnType<typeof setTimeout> | null = null;
  const w = watchFn(
    dir,
    () => {
      if (timer !== null) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        onChange();
      }, debounceMs);
    },
    onError,
  );
  return {
    close() {
      if (timer !== null) clearTimeout(timer);
      w.close();
    },
  };
}
