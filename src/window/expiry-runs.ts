import type { WindowKind } from '../config.js';
import type { TimeLog } from './time-log.js';

/**
 * TimeLog.expiriesBefore as runs, the form a sync's reply carries (SyncReply.expiries and
 * .expiryCounts): equal instants joined, each with the admits expiring then; counts undefined when
 * every instant is one admit. One entry per instant, however many admits it stands for, as sync.lua
 * lists them.
 */
export function expiryRunsBefore(
  log: TimeLog,
  horizon: number,
  windowMs: number,
  kind: WindowKind,
  out: { expiries: number[]; expiryCounts?: number[] },
): void {
  const list = log.expiriesBefore(horizon, windowMs, kind);
  const n = list.length;
  if (n === 0) {
    out.expiries = list;
    out.expiryCounts = undefined;
    return;
  }
  const counted = log.hasCounts;
  let plain = true;
  for (let i = 1; i < n; i++) {
    if (list[i] === list[i - 1]) {
      plain = false;
      break;
    }
  }
  if (plain && counted) {
    for (let i = 0; i < n; i++) {
      if (log.slotCount(i) !== 1) {
        plain = false;
        break;
      }
    }
  }
  if (plain) {
    out.expiries = list;
    out.expiryCounts = undefined;
    return;
  }
  const ex: number[] = [];
  const cs: number[] = [];
  for (let i = 0; i < n; i++) {
    const k = counted ? log.slotCount(i) : 1;
    if (ex.length > 0 && ex[ex.length - 1] === list[i]) cs[cs.length - 1] += k;
    else {
      ex.push(list[i]);
      cs.push(k);
    }
  }
  out.expiries = ex;
  out.expiryCounts = cs;
}
