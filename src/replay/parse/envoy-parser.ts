/**
 * Envoy's default access-log format, read by a hand-written scanner:
 *
 *   [%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE%
 *   %RESPONSE_FLAGS% %BYTES_RECEIVED% %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)%
 *   "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%"
 *
 * START_TIME is ISO-8601 in UTC with ms (`2016-04-15T20:17:00.310Z`). The format has no peer address:
 * `ip` is X-Forwarded-For's first address (`-` when the request had none). Response code 0 (no
 * response sent) is kept as status 0. Fields after :AUTHORITY are not needed and not checked.
 */
import { KEY_JOINER, type KeyPart } from './key-spec.js';
import { failureReason, LineFields, type LineParser } from './line-parser.js';
import { closingQuote, requestAfter, requestFailure, target } from './quoted.js';
import { isoResult, parseIsoTime } from './timestamps.js';

const PATH = 0;
const IP = 1;
/** The quoted headers, from XFF = 2: x-forwarded-for, user-agent, x-request-id, :authority. */
const XFF = 2;
const HEADERS = ['x-forwarded-for', 'user-agent', 'x-request-id', ':authority'];
/** The quoted fields after the numbers, in order, that must be there (UPSTREAM_HOST may be cut). */
const QUOTED = 4;

function partCode(part: KeyPart): number {
  if (part.kind === 'ip') return IP;
  if (part.kind === 'path') return PATH;
  if (part.kind === 'header') {
    const i = HEADERS.indexOf(part.name);
    if (i >= 0) return XFF + i;
  }
  throw new Error(`the envoy format cannot key by ${JSON.stringify(part)}`);
}

export class EnvoyParser extends LineFields implements LineParser {
  private readonly parts: number[];
  private pathStart = 0;
  private pathEnd = 0;
  /** start and end of XFF, USER-AGENT, X-REQUEST-ID, :AUTHORITY */
  private readonly spans = new Int32Array(2 * QUOTED);

  constructor(key: KeyPart[]) {
    super(false);
    this.parts = key.map(partCode);
  }

  parse(line: string): string | null {
    const reason = this.scan(line);
    if (reason !== null) return failureReason(line, reason);
    const parts = this.parts;
    let key = this.field(line, parts[0]);
    for (let i = 1; i < parts.length; i++) key += KEY_JOINER + this.field(line, parts[i]);
    this.key = key;
    return null;
  }

  private field(line: string, part: number): string {
    if (part === PATH) return line.slice(this.pathStart, this.pathEnd);
    const spans = this.spans;
    if (part === IP) {
      // the client is the first address X-Forwarded-For names
      const from = spans[0];
      const comma = line.indexOf(',', from);
      const to = comma >= 0 && comma < spans[1] ? comma : spans[1];
      return line.slice(from, to).trim();
    }
    const i = part - XFF;
    return line.slice(spans[2 * i], spans[2 * i + 1]);
  }

  private scan(line: string): string | null {
    const n = line.length;
    if (n === 0) return 'empty line';
    if (line.charCodeAt(0) !== 91) return 'missing fields'; // [
    const close = line.indexOf(']', 1);
    if (close < 0) return 'truncated line';
    const t = parseIsoTime(line, 1, close);
    if (Number.isNaN(t)) return 'bad date';
    this.t = t;
    this.wholeSecond = isoResult.wholeSecond;
    const reqEnd = requestAfter(line, close);
    if (reqEnd < 0) return requestFailure(reqEnd);
    this.pathStart = target.start;
    this.pathEnd = target.end;
    if (line.charCodeAt(reqEnd + 1) !== 32) return reqEnd + 1 >= n ? 'truncated line' : 'missing fields';
    // %RESPONSE_CODE%: 0 to 999
    let i = reqEnd + 2;
    let status = 0;
    const from = i;
    let c = line.charCodeAt(i) - 48;
    while (c >= 0 && c <= 9 && i - from < 3) {
      status = status * 10 + c;
      i++;
      c = line.charCodeAt(i) - 48;
    }
    if (i === from || (i < n && line.charCodeAt(i) !== 32)) return i >= n ? 'truncated line' : 'bad status';
    if (i >= n) return 'truncated line';
    this.status = status;
    // flags, bytes, duration, upstream time: five words, then the quoted headers
    const firstQuote = line.indexOf(' "', i);
    if (firstQuote < 0) return 'missing fields';
    const spans = this.spans;
    let at = firstQuote + 2;
    for (let f = 0; f < QUOTED; f++) {
      const end = closingQuote(line, at);
      if (end < 0) return 'truncated line';
      spans[2 * f] = at;
      spans[2 * f + 1] = end;
      if (f + 1 < QUOTED) {
        if (line.charCodeAt(end + 1) !== 32 || line.charCodeAt(end + 2) !== 34) return 'missing fields';
        at = end + 3;
      }
    }
    return null;
  }
}
