/**
 * NGINX/Apache `common` and `combined` lines, read by a hand-written field scanner (no regex: one
 * pass of indexOf and charCodeAt, nothing to backtrack):
 *
 *   common:   %h %l %u [%t] "%r" %>s %b
 *   combined: common + ` "%{Referer}i" "%{User-agent}i"` (anything after is ignored)
 *
 * The path is the request's target without its query string.
 */
import { found, scanClfBytes } from './clf-bytes.js';
import { KEY_JOINER, type KeyPart } from './key-spec.js';
import { failureReason, LineFields, type LineParser } from './line-parser.js';
import { asciiKey } from './own-key.js';
import { closingQuote, requestAfter, requestFailure, target, unescapeField } from './quoted.js';
import { parseClfTime } from './timestamps.js';

const IP = 0;
const PATH = 1;
const REFERER = 2;
const USER_AGENT = 3;

function partCode(part: KeyPart): number {
  if (part.kind === 'ip') return IP;
  if (part.kind === 'path') return PATH;
  if (part.kind === 'header' && part.name === 'referer') return REFERER;
  if (part.kind === 'header' && part.name === 'user-agent') return USER_AGENT;
  throw new Error(`the common and combined formats cannot key by ${JSON.stringify(part)}`);
}

export class ClfParser extends LineFields implements LineParser {
  private readonly parts: number[];
  private readonly combined: boolean;
  // the spans of the last line read, for the key
  private ipEnd = 0;
  private pathStart = 0;
  private pathEnd = 0;
  private refStart = 0;
  private refEnd = 0;
  private uaStart = 0;
  private uaEnd = 0;

  constructor(format: 'combined' | 'common', key: KeyPart[]) {
    super(true);
    this.combined = format === 'combined';
    this.parts = key.map(partCode);
    if (!this.combined && (this.parts.includes(REFERER) || this.parts.includes(USER_AGENT))) {
      throw new Error(
        'the common format writes no headers; key by header:referer or header:user-agent needs combined',
      );
    }
  }

  parse(line: string): string | null {
    const reason = this.scan(line);
    if (reason !== null) return failureReason(line, reason);
    const parts = this.parts;
    if (parts.length === 1) {
      this.key = this.field(line, parts[0]);
    } else {
      let key = this.field(line, parts[0]);
      for (let i = 1; i < parts.length; i++) key += KEY_JOINER + this.field(line, parts[i]);
      this.key = key;
    }
    return null;
  }

  parseBytes(b: Buffer, start: number, end: number): boolean {
    if (!scanClfBytes(b, start, end, this.combined)) return false;
    const parts = this.parts;
    let key = this.byteField(b, start, parts[0]);
    if (key === null) return false;
    for (let i = 1; i < parts.length; i++) {
      const more = this.byteField(b, start, parts[i]);
      if (more === null) return false;
      key += KEY_JOINER + more;
    }
    this.t = found.t;
    this.status = found.status;
    this.key = key;
    return true;
  }

  /** A key part of the line at b[start..) scanClfBytes read; null for a quoted one with an escape to undo. */
  private byteField(b: Buffer, start: number, part: number): string | null {
    if (part === IP) return asciiKey(b, start, found.ipEnd);
    const from = part === PATH ? found.pathStart : part === REFERER ? found.refStart : found.uaStart;
    const to = part === PATH ? found.pathEnd : part === REFERER ? found.refEnd : found.uaEnd;
    for (let i = from; i < to; i++) if (b[i] === 92) return null;
    return asciiKey(b, from, to);
  }

  private field(line: string, part: number): string {
    if (part === IP) return line.slice(0, this.ipEnd);
    if (part === PATH) return unescapeField(line, this.pathStart, this.pathEnd);
    if (part === REFERER) return unescapeField(line, this.refStart, this.refEnd);
    return unescapeField(line, this.uaStart, this.uaEnd);
  }

  /** Finds the fields' spans, t and status; null when the line is whole, else what is wrong. */
  private scan(line: string): string | null {
    const n = line.length;
    const ipEnd = line.indexOf(' ');
    if (ipEnd <= 0) return n === 0 ? 'empty line' : 'missing fields';
    this.ipEnd = ipEnd;
    // ident and user sit between the address and the stamp; a user name may hold spaces
    const open = line.indexOf('[', ipEnd);
    if (open < 0) return 'missing fields';
    // the stamp is 26 characters; look further only for a malformed one
    let close = open + 27;
    if (line.charCodeAt(close) !== 93) {
      close = line.indexOf(']', open);
      if (close < 0) return 'truncated line';
    }
    const t = parseClfTime(line, open + 1, close);
    if (Number.isNaN(t)) return 'bad date';
    this.t = t;
    const reqEnd = requestAfter(line, close);
    if (reqEnd < 0) return requestFailure(reqEnd);
    this.pathStart = target.start;
    this.pathEnd = target.end;
    // " %>s %b"
    const s = reqEnd + 2;
    if (line.charCodeAt(reqEnd + 1) !== 32 || s >= n) return 'truncated line';
    const d0 = line.charCodeAt(s) - 48;
    const d1 = line.charCodeAt(s + 1) - 48;
    const d2 = line.charCodeAt(s + 2) - 48;
    if (d0 < 1 || d0 > 9 || d1 < 0 || d1 > 9 || d2 < 0 || d2 > 9) {
      return s + 3 > n ? 'truncated line' : 'bad status';
    }
    const after = line.charCodeAt(s + 3);
    if (after !== 32) return s + 3 >= n ? 'truncated line' : 'bad status';
    this.status = d0 * 100 + d1 * 10 + d2;
    const bytesEnd = line.indexOf(' ', s + 4);
    if (!this.combined) return s + 4 >= n ? 'truncated line' : null;
    // combined: ` "referer" "user-agent"`
    if (bytesEnd < 0) return 'missing fields';
    if (line.charCodeAt(bytesEnd + 1) !== 34) return 'missing fields';
    const refEnd = closingQuote(line, bytesEnd + 2);
    if (refEnd < 0) return 'truncated line';
    this.refStart = bytesEnd + 2;
    this.refEnd = refEnd;
    if (line.charCodeAt(refEnd + 1) !== 32 || line.charCodeAt(refEnd + 2) !== 34) {
      return 'missing fields';
    }
    const uaEnd = closingQuote(line, refEnd + 3);
    if (uaEnd < 0) return 'truncated line';
    this.uaStart = refEnd + 3;
    this.uaEnd = uaEnd;
    return null;
  }
}
