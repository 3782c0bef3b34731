/**
 * What every format's reader does with one line: either it is an arrival (its fields left on the
 * parser, so the hot loop allocates nothing but the key) or it is malformed, and the reason says why.
 */
export interface LineParser {
  /** Reads one line: null when it is an arrival (see the fields below), else why it is malformed. */
  parse(line: string): string | null;
  /** ms since the epoch, timezone resolved. */
  t: number;
  /** The stamp had no fraction of a second (so `--spread uniform` may place it inside its second). */
  wholeSecond: boolean;
  status: number | undefined;
  key: string;
  /**
   * parse() of the line b[start, end) of ASCII bytes, when the parser reads such lines and this one
   * is an arrival: true, its fields set, `key` a string of its own. False: read it as text with parse().
   */
  parseBytes?(b: Buffer, start: number, end: number): boolean;
}

/**
 * The fields every format's parser leaves a parsed line in (see LineParser), as a base to extend;
 * `wholeSecond` starts as the format's usual stamps have it.
 */
export abstract class LineFields {
  t = 0;
  status: number | undefined = undefined;
  key = '';
  constructor(public wholeSecond: boolean) {}
}

/** Why a line that failed to parse failed, naming binary data when that is what it is. */
export function failureReason(line: string, reason: string): string {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    // control characters other than tab, or U+FFFD (bytes that were not UTF-8)
    if ((c < 32 && c !== 9) || c === 0xfffd) return `binary data (${reason})`;
  }
  return reason;
}
