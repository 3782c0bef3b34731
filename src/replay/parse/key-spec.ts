/**
 * `--key`: what the limit is keyed by, as parts joined by `+` (`ip`, `path`, `header:NAME`,
 * `field:NAME`), checked against what the log format carries, so a key the format cannot give is a
 * clear error before any line is read.
 */
import { type LogFormat, OptionError } from './options.js';

export type KeyPart =
  | { kind: 'ip' }
  | { kind: 'path' }
  /** `name` in lower case, as headers compare. */
  | { kind: 'header'; name: string }
  | { kind: 'field'; name: string };

/** The headers each text format writes. json reads `header:NAME` as the field NAME. */
export const HEADERS_BY_FORMAT: Record<Exclude<LogFormat, 'json'>, readonly string[]> = {
  combined: ['referer', 'user-agent'],
  common: [],
  envoy: ['x-forwarded-for', 'user-agent', 'x-request-id', ':authority'],
};

/** Names people write for the same header. */
const HEADER_ALIASES: Record<string, string> = {
  referrer: 'referer',
  host: ':authority',
  authority: ':authority',
};

/** Parts join into one key with this between them (a space: never inside an address or a path). */
export const KEY_JOINER = ' ';

function headerPart(name: string, format: LogFormat, spec: string): KeyPart {
  if (format === 'json') return { kind: 'field', name };
  const lower = name.toLowerCase();
  const canonical = HEADER_ALIASES[lower] ?? lower;
  const carried = HEADERS_BY_FORMAT[format];
  if (!carried.includes(canonical)) {
    const what =
      carried.length === 0
        ? `the ${format} format writes no headers (combined writes referer and user-agent)`
        : `the ${format} format writes only ${carried.join(', ')}`;
    throw keyError(`${spec}: ${what}; header "${name}" is not in the log`);
  }
  return { kind: 'header', name: canonical };
}

/** A bad key spec, its message naming the flag as a user wrote it. */
function keyError(detail: string): OptionError {
  return new OptionError('key', detail, `--key ${detail}`);
}

/** Parses a `--key` value for a log format; throws an Error naming the spec and what is wrong. */
export function parseKeySpec(spec: string, format: LogFormat): KeyPart[] {
  if (typeof spec !== 'string' || spec.trim() === '') {
    throw keyError('is empty: expected ip, path, header:NAME, field:NAME or parts joined by +, e.g. path+ip');
  }
  const parts: KeyPart[] = [];
  for (const raw of spec.split('+')) {
    const word = raw.trim();
    const colon = word.indexOf(':');
    // ':authority' starts with a colon; only a colon after the kind separates kind and name
    const kind = colon > 0 ? word.slice(0, colon).toLowerCase() : word.toLowerCase();
    const name = colon > 0 ? word.slice(colon + 1).trim() : '';
    if (word === '') throw keyError(`${spec}: an empty part (two + in a row, or a + at an end)`);
    if (kind === 'ip' || kind === 'path') {
      if (colon > 0) throw keyError(`${spec}: "${kind}" takes no name; got "${word}"`);
      // (Envoy's default format has no peer address: its `ip` is X-Forwarded-For's first address)
      parts.push({ kind });
    } else if (kind === 'header' || kind === 'field') {
      if (name === '') throw keyError(`${spec}: "${kind}:" needs a name, e.g. ${kind}:user-agent`);
      if (kind === 'field' && format !== 'json') {
        throw keyError(
          `${spec}: field:NAME reads a JSON field, so it needs --format json (this is ${format}); for a header use header:NAME`,
        );
      }
      parts.push(kind === 'header' ? headerPart(name, format, spec) : { kind: 'field', name });
    } else {
      throw keyError(
        `${spec}: unknown part "${word}"; expected ip, path, header:NAME or field:NAME, joined by +`,
      );
    }
  }
  return parts;
}
