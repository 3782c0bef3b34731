/** Quoted fields of text access logs (`"GET / HTTP/1.1"`, `"Mozilla/5.0 …"`), escapes and all. */

/**
 * The index of the `"` that closes a field opened just before s[from], or -1: a `"` after an odd run
 * of backslashes is escaped (Apache writes `\"` and `\\`; NGINX writes `\x22`, never a bare quote).
 */
export function closingQuote(s: string, from: number): number {
  let q = s.indexOf('"', from);
  while (q >= 0) {
    let backslashes = 0;
    while (q - 1 - backslashes >= from && s.charCodeAt(q - 1 - backslashes) === 92) backslashes++;
    if ((backslashes & 1) === 0) return q;
    q = s.indexOf('"', q + 1);
  }
  return -1;
}

/** Where requestTarget found the target: [start, end) of the line (one object, reused: no allocation per line). */
export const target = { start: 0, end: 0 };

/**
 * The target of a quoted request line s[from, to) ("METHOD TARGET PROTOCOL"), up to its query, into
 * `target`; a request that is not three words (junk a client sent, "-") is all of it.
 */
export function requestTarget(s: string, from: number, to: number): void {
  const sp1 = s.indexOf(' ', from);
  if (sp1 >= 0 && sp1 < to) {
    let sp2 = s.indexOf(' ', sp1 + 1);
    if (sp2 < 0 || sp2 > to) sp2 = to;
    const q = s.indexOf('?', sp1 + 1);
    target.start = sp1 + 1;
    target.end = q >= 0 && q < sp2 ? q : sp2;
  } else {
    target.start = from;
    target.end = to;
  }
}

/** requestAfter's answers when there is no request line: cut short, or something else in its place. */
export const TRUNCATED = -1;
export const MISSING = -2;

/**
 * The quoted request line that follows a stamp closed at s[close] (`] "GET /a HTTP/1.1"`), its
 * target into `target`: the index of its closing quote, or TRUNCATED or MISSING.
 */
export function requestAfter(s: string, close: number): number {
  if (s.charCodeAt(close + 1) !== 32 || s.charCodeAt(close + 2) !== 34) {
    return close + 1 >= s.length ? TRUNCATED : MISSING;
  }
  const reqStart = close + 3;
  const reqEnd = closingQuote(s, reqStart);
  if (reqEnd < 0) return TRUNCATED;
  requestTarget(s, reqStart, reqEnd);
  return reqEnd;
}

/** requestAfter's failure in the words of a parse failure. */
export function requestFailure(code: number): string {
  return code === TRUNCATED ? 'truncated line' : 'missing fields';
}

/**
 * A quoted field's text with `\"` and `\\` undone (only when it has a backslash). NGINX's `\xHH` is
 * left as written: a key stays printable.
 */
export function unescapeField(s: string, from: number, to: number): string {
  const raw = s.slice(from, to);
  if (raw.indexOf('\\') < 0) return raw;
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    const n = raw[i + 1];
    if (c === '\\' && (n === '"' || n === '\\')) {
      out += n;
      i++;
    } else {
      out += c;
    }
  }
  return out;
}

/** The inverse of unescapeField for what a log writer must escape: `"` and `\`. */
export function escapeField(s: string): string {
  return s.indexOf('"') < 0 && s.indexOf('\\') < 0 ? s : s.replace(/[\\"]/g, (c) => `\\${c}`);
}
