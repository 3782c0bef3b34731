import type { AsyncStore } from '../../src/store/contract.js';
import type { MemoryStore } from '../../src/store/memory-store.js';

/** An AsyncStore over one MemoryStore that, while `holding`, keeps each call until the test lands it. */
export class HeldStore implements AsyncStore {
  readonly clock = 'caller' as const;
  holding = false;
  readonly held: { name: string; land: () => void }[] = [];
  readonly landed: string[] = [];
  constructor(readonly memory: MemoryStore) {}

  private call<T>(name: string, apply: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const land = () => {
        this.landed.push(name);
        try {
          resolve(apply());
        } catch (e) {
          reject(e);
        }
      };
      if (this.holding) this.held.push({ name, land });
      else land();
    });
  }

  /** Lands the held call named `name` (the test's chosen order). */
  land(name: string): void {
    const i = this.held.findIndex((h) => h.name === name);
    if (i < 0) throw new Error(`no held call ${name}; held: ${this.held.map((h) => h.name).join(', ')}`);
    this.held.splice(i, 1)[0].land();
  }

  sync: AsyncStore['sync'] = (req, now) => this.call(`sync ${req.seq}`, () => this.memory.sync(req, now));
  ask: AsyncStore['ask'] = (req, now) =>
    this.call(`ask after sync ${req.seq ?? 0}`, () => this.memory.ask(req, now));
  logAdmit: AsyncStore['logAdmit'] = (...a) => this.call('logAdmit', () => this.memory.logAdmit(...a));
  voidLogAdmits: AsyncStore['voidLogAdmits'] = (...a) =>
    this.call('void', () => this.memory.voidLogAdmits(...a));
  resetKey: NonNullable<AsyncStore['resetKey']> = (req, now) =>
    this.call(`reset ${req.key}`, () => this.memory.resetKey(req, now));
  resetScan: NonNullable<AsyncStore['resetScan']> = (req, now) =>
    this.call(`scan ${req.cursor}`, () => this.memory.resetScan(req, now));
}
