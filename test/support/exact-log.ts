import type { Cluster, Redis } from 'ioredis';

/**
 * One run of an exact log (window-exact.lua): `admits` at instant `at`. `id` names the run for as
 * long as it is in the log: a one-run member's name, or for a member of several runs
 * ('#<k><runs><id>*<admits>', <id> 8 bytes) its id and the run's instant, which stay when prune replaces the
 * member by one holding its runs that still count.
 */
export interface LogRun {
  id: string;
  at: number;
  admits: number;
}

/** The runs of one member, given as Redis stores it (binary) and its score. */
export function runsOfMember(member: Buffer, score: number): LogRun[] {
  const text = member.toString('latin1');
  const star = text.lastIndexOf('*');
  if (member[0] !== 0x23) {
    return [{ id: text, at: score, admits: star < 0 ? 1 : Number(text.slice(star + 1)) }];
  }
  const k = member[1];
  const id = member.subarray(2 + 16 * k, star).toString('hex');
  const runs: LogRun[] = [];
  for (let j = 0, p = 2; j < k; j++, p += 16) {
    const at = member.readDoubleLE(p);
    runs.push({ id: `#${id}@${at}`, at, admits: member.readDoubleLE(p + 8) });
  }
  return runs;
}

/** Every run in the exact log `log`. */
export async function readExactLog(client: Redis | Cluster, log: string): Promise<LogRun[]> {
  const r = await client.zrangeBuffer(log, '0', '-1', 'WITHSCORES');
  const runs: LogRun[] = [];
  for (let i = 0; i < r.length; i += 2) runs.push(...runsOfMember(r[i], Number(r[i + 1].toString())));
  return runs;
}
