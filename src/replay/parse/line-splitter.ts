/**
 * A log's chunks cut into lines (read-lines.ts reads the chunks): decoded as UTF-8 across chunk
 * boundaries, CR before LF and a leading byte-order mark dropped, a line longer than `maxLineLength`
 * characters handed on cut to its start and flagged, the rest of it skipped. A chunk of ASCII (nearly
 * every chunk of an access log) is cut from its bytes, its lines handed on as spans of them, not
 * decoded into a string and sliced a line at a time: the same lines, cut at the same places.
 */
import { isAscii } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';

export interface LineBatch {
  /** How many lines the batch holds. */
  count: number;
  /** The lines, when `spans` is undefined; else only those held as text, as `spans` says. */
  lines: string[];
  /**
   * Set for a chunk of ASCII: a pair per line, its [start, end) in `bytes`, or -1 and its index in
   * `lines` (a line begun in the chunk before, or cut for its length).
   */
  spans: number[] | undefined;
  /** The chunk `spans` are in: good until the next batch is asked for. */
  bytes: Buffer | undefined;
  /** The 1-based line number of the batch's first line. */
  first: number;
  /** Indices (among the batch's lines) of lines longer than the limit; their text is only their start. */
  tooLong: number[];
  /** Set on the last batch when the file could not be read to its end (a corrupt gzip stream). */
  brokenOff?: string;
}

/** How much of an overlong line is kept to show where it was. */
const TOO_LONG_KEPT = 256;

export class LineSplitter {
  /** The number of the next line. */
  lineNo = 1;
  sawText = false;
  private readonly decoder = new StringDecoder('utf8');
  private carry = '';
  // inside an overlong line whose start was handed on: skip to its newline
  private skipping = false;
  private batch: LineBatch;

  constructor(private readonly maxLineLength: number) {
    this.batch = this.empty();
  }

  /** Lines in the batch not yet taken. */
  get count(): number {
    return this.batch.count;
  }

  /** Cuts a chunk read into lines, into the batch. */
  chunk(b: Buffer): void {
    // no bytes of a character begun in an earlier chunk held (lastNeed: the decoder's own name)
    const clean = (this.decoder as unknown as { lastNeed: number }).lastNeed === 0;
    if (this.batch.count === 0 && clean && isAscii(b)) this.splitAscii(b);
    else this.split(this.decoder.write(b));
  }

  /** At the end of the file: what the decoder held, and the last line if it had no newline. */
  end(): void {
    this.split(this.decoder.end());
    if (this.carry.length > 0) this.push(this.carry, false);
  }

  /** The lines cut so far, as a batch. */
  take(): LineBatch {
    const out = this.batch;
    this.batch = this.empty();
    return out;
  }

  private empty(): LineBatch {
    return { count: 0, lines: [], spans: undefined, bytes: undefined, first: this.lineNo, tooLong: [] };
  }

  private push(text: string, tooLong: boolean): void {
    const batch = this.batch;
    if (tooLong) batch.tooLong.push(batch.count);
    if (batch.spans !== undefined) batch.spans.push(-1, batch.lines.length);
    batch.lines.push(text);
    batch.count++;
    this.lineNo++;
  }

  /** Hands on the lines of text[from..) that end in it; returns where the unfinished rest starts. */
  private scan(text: string, from: number): number {
    let pos = from;
    for (;;) {
      const nl = text.indexOf('\n', pos);
      if (nl < 0) break;
      if (this.skipping) {
        this.skipping = false;
      } else {
        let end = nl;
        if (end > pos && text.charCodeAt(end - 1) === 13) end--; // CRLF
        if (end - pos > this.maxLineLength) this.push(text.slice(pos, pos + TOO_LONG_KEPT), true);
        else this.push(text.slice(pos, end), false);
      }
      pos = nl + 1;
    }
    return pos;
  }

  private split(decoded: string): void {
    // a byte-order mark some Windows tools write is not part of the first line
    const chunk = !this.sawText && decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
    if (decoded.length > 0) this.sawText = true;
    let text = chunk;
    let pos = 0;
    if (this.carry.length > 0) {
      // the carried line joined with its own end alone: a whole chunk joined to it was flattened by
      // the first indexOf, a copy of 64 KiB per chunk (most of the readers' garbage)
      const nl = chunk.indexOf('\n');
      if (nl < 0) text = this.carry + chunk;
      else {
        this.scan(this.carry + chunk.slice(0, nl + 1), 0);
        pos = nl + 1;
      }
      this.carry = '';
    }
    pos = this.scan(text, pos);
    if (this.skipping) return;
    const rest = pos === 0 ? text : text.slice(pos);
    if (rest.length > this.maxLineLength) {
      this.push(rest.slice(0, TOO_LONG_KEPT), true);
      this.skipping = true;
    } else {
      this.carry = rest;
    }
  }

  /** scan() on a chunk of ASCII: the same lines, handed on as spans of its bytes. */
  private scanAscii(b: Buffer, from: number): number {
    const batch = this.batch;
    const spans = batch.spans!;
    let pos = from;
    for (;;) {
      const nl = b.indexOf(10, pos);
      if (nl < 0) break;
      if (this.skipping) {
        this.skipping = false;
      } else {
        let end = nl;
        if (end > pos && b[end - 1] === 13) end--; // CRLF
        if (end - pos > this.maxLineLength) this.push(b.toString('latin1', pos, pos + TOO_LONG_KEPT), true);
        else {
          spans.push(pos, end);
          batch.count++;
          this.lineNo++;
        }
      }
      pos = nl + 1;
    }
    return pos;
  }

  /**
   * split() on a chunk of ASCII with no character begun in the chunk before: its decoded text would be
   * its bytes, so its lines are cut from them as split() would cut them from that text.
   */
  private splitAscii(b: Buffer): void {
    if (this.carry.length > 0 && b.indexOf(10) < 0) {
      // the carried line goes on past this chunk: split() joins them (a rare case: a line of 64 KiB)
      this.split(b.toString('latin1'));
      return;
    }
    if (b.length > 0) this.sawText = true;
    this.batch.spans = [];
    this.batch.bytes = b;
    let pos = 0;
    if (this.carry.length > 0) {
      const nl = b.indexOf(10);
      this.scan(this.carry + b.toString('latin1', 0, nl + 1), 0);
      pos = nl + 1;
      this.carry = '';
    }
    pos = this.scanAscii(b, pos);
    if (this.skipping) return;
    if (b.length - pos > this.maxLineLength) {
      this.push(b.toString('latin1', pos, pos + TOO_LONG_KEPT), true);
      this.skipping = true;
    } else {
      this.carry = b.toString('latin1', pos);
    }
  }
}
