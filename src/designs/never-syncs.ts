import type { SyncEntry, SyncReply } from '../store/contract.js';

/**
 * The sync half of KeyLimiter for a design whose `syncs` is 'never' (central-log: the store holds
 * the state; split: fixed shares that never leave the gateway): nothing to push, nothing to apply,
 * nothing taken to put back.
 */
export abstract class NeverSyncs {
  syncEntry(_key: string, _now: number): SyncEntry | null {
    return null;
  }

  applySync(_reply: SyncReply, _now: number): void {}

  syncFailed(_now: number): void {}

  unsyncedAdmits(): number {
    return 0;
  }
}
