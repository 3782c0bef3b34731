/**
 * ClfParser's scan on a line of ASCII bytes (read-lines.ts hands lines of an ASCII chunk on as spans
 * of its bytes): the same fields, for a line the string scan reads as an arrival. It reads no other:
 * anything it does not find as it expects (a malformed line, an escaped quote, a stamp past its 26
 * characters) it declines, and the line is read as text by the string scan, reasons and all. So it
 * only has to agree with that scan on the lines both read.
 */
import { parseClfTimeBytes } from './timestamps.js';

/** What scanClfBytes found, as absolute indices into the bytes (one object, reused). */
export const found = {
  t: 0,
  status: 0,
  ipEnd: 0,
  pathStart: 0,
  pathEnd: 0,
  refStart: 0,
  refEnd: 0,
  uaStart: 0,
  uaEnd: 0,
};

/** The first c in b[from, to), or -1. */
function find(b: Buffer, c: number, from: number, to: number): number {
  for (let i = from; i < to; i++) if (b[i] === c) return i;
  return -1;
}

/**
 * closingQuote's answer when the first `"` in b[from, end) is not escaped; else -1 (declined). Found by
 * Buffer's indexOf (a user agent is 60 bytes and more), which looks on past `end` if it must.
 */
function plainQuote(b: Buffer, from: number, end: number): number {
  const q = b.indexOf(34, from);
  return q < 0 || q >= end || (q > from && b[q - 1] === 92) ? -1 : q;
}

/**
 * Reads the line b[start, end) into `found`; false when it declines the line (see above). Mirrors
 * ClfParser's scan, quoted.ts' requestAfter and requestTarget step by step.
 */
export function scanClfBytes(b: Buffer, start: number, end: number, combined: boolean): boolean {
  const ipEnd = find(b, 32, start, end);
  if (ipEnd <= start) return false;
  found.ipEnd = ipEnd;
  const open = find(b, 91, ipEnd, end);
  if (open < 0) return false;
  // the stamp is 26 characters and its `]` right after
  const close = open + 27;
  if (close >= end || b[close] !== 93) return false;
  const t = parseClfTimeBytes(b, open + 1);
  if (Number.isNaN(t)) return false;
  found.t = t;
  // ` "METHOD TARGET PROTOCOL"`
  if (close + 2 >= end || b[close + 1] !== 32 || b[close + 2] !== 34) return false;
  const reqStart = close + 3;
  const reqEnd = plainQuote(b, reqStart, end);
  if (reqEnd < 0) return false;
  const sp1 = find(b, 32, reqStart, reqEnd);
  if (sp1 >= 0) {
    let sp2 = find(b, 32, sp1 + 1, reqEnd);
    if (sp2 < 0) sp2 = reqEnd;
    const q = find(b, 63, sp1 + 1, sp2);
    found.pathStart = sp1 + 1;
    found.pathEnd = q >= 0 ? q : sp2;
  } else {
    found.pathStart = reqStart;
    found.pathEnd = reqEnd;
  }
  // ` %>s %b`
  const s = reqEnd + 2;
  if (s + 3 >= end || b[reqEnd + 1] !== 32) return false;
  const d0 = b[s] - 48;
  const d1 = b[s + 1] - 48;
  const d2 = b[s + 2] - 48;
  if (d0 < 1 || d0 > 9 || d1 < 0 || d1 > 9 || d2 < 0 || d2 > 9 || b[s + 3] !== 32) return false;
  found.status = d0 * 100 + d1 * 10 + d2;
  if (!combined) return s + 4 < end;
  // combined: ` "referer" "user-agent"`
  const bytesEnd = find(b, 32, s + 4, end);
  if (bytesEnd < 0 || bytesEnd + 1 >= end || b[bytesEnd + 1] !== 34) return false;
  const refEnd = plainQuote(b, bytesEnd + 2, end);
  if (refEnd < 0 || refEnd + 2 >= end || b[refEnd + 1] !== 32 || b[refEnd + 2] !== 34) return false;
  const uaEnd = plainQuote(b, refEnd + 3, end);
  if (uaEnd < 0) return false;
  found.refStart = bytesEnd + 2;
  found.refEnd = refEnd;
  found.uaStart = refEnd + 3;
  found.uaEnd = uaEnd;
  return true;
}
