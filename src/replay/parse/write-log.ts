/**
 * Writes arrivals as access-log lines in any format the readers take: test and bench logs, and the
 * other half of the round trip the property tests check (write arrivals, read them, same arrivals).
 * Each arrival's key goes where the `key` spec reads it; the fields the key does not use get
 * plausible constants.
 */
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Arrival } from '../arrival.js';
import { KEY_JOINER, type KeyPart, parseKeySpec } from './key-spec.js';
import type { LogFormat } from './options.js';
import { escapeField } from './quoted.js';
import { MONTH_NAMES } from './timestamps.js';

export interface WriteLogOptions {
  format: LogFormat;
  /** The `--key` the log will be read with. Default `ip`. */
  key?: string;
  /** combined/common: the zone the stamps are written in, minutes east of UTC. Default 0. */
  tzOffsetMinutes?: number;
  /** json: how the time is written. Default `ms`. */
  jsonTime?: 's' | 'ms' | 'iso';
  timeField?: string;
  statusField?: string;
  ipField?: string;
  pathField?: string;
  /** Write it gzipped. */
  gzip?: boolean;
}

interface Fields {
  ip: string;
  path: string;
  headers: Record<string, string>;
  jsonFields: Record<string, string>;
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/** CLF's `10/Oct/2000:13:55:36 -0700` for t (its second), in the given zone. */
export function clfTime(t: number, tzOffsetMinutes: number): string {
  const d = new Date(Math.floor(t / 1000) * 1000 + tzOffsetMinutes * 60_000);
  const off = Math.abs(tzOffsetMinutes);
  const zone = `${tzOffsetMinutes < 0 ? '-' : '+'}${pad2(Math.floor(off / 60))}${pad2(off % 60)}`;
  return `${pad2(d.getUTCDate())}/${MONTH_NAMES[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} ${zone}`;
}

/** ISO-8601 in UTC with ms, as Envoy writes START_TIME. */
export function isoTime(t: number): string {
  const d = new Date(t);
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}T${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}.${pad3(d.getUTCMilliseconds())}Z`;
}

/** Where the key spec reads each part of the key, filled from an arrival's key. */
function fieldsFor(a: Arrival, parts: KeyPart[], o: WriteLogOptions): Fields {
  const f: Fields = { ip: '10.0.0.1', path: '/', headers: {}, jsonFields: {} };
  const pieces = parts.length === 1 ? [a.key] : a.key.split(KEY_JOINER);
  if (pieces.length < parts.length) {
    throw new Error(`key ${JSON.stringify(a.key)} has fewer than the ${parts.length} parts of its key spec`);
  }
  // a last part that held the joiner gets the rest back
  if (pieces.length > parts.length)
    pieces.splice(parts.length - 1, Infinity, pieces.slice(parts.length - 1).join(KEY_JOINER));
  parts.forEach((p, i) => {
    const v = pieces[i];
    if (p.kind === 'ip') {
      if (o.format !== 'json' && (v === '' || /[\s",]/.test(v)))
        throw new Error(`an ip key cannot be ${JSON.stringify(v)}`);
      f.ip = v;
      f.jsonFields[o.ipField ?? 'ip'] = v;
    } else if (p.kind === 'path') {
      if (o.format !== 'json' && (v === '' || /[\s?"]/.test(v)))
        throw new Error(`a path key cannot be ${JSON.stringify(v)}`);
      f.path = v;
      f.jsonFields[o.pathField ?? 'path'] = v;
    } else if (p.kind === 'header') {
      f.headers[p.name] = v;
    } else {
      f.jsonFields[p.name] = v;
    }
  });
  return f;
}

/** One line (without its newline) for an arrival. */
export function formatLine(
  a: Arrival,
  o: WriteLogOptions,
  parts = parseKeySpec(o.key ?? 'ip', o.format),
): string {
  const f = fieldsFor(a, parts, o);
  const status = a.status ?? 200;
  if (o.format === 'combined' || o.format === 'common') {
    const common = `${f.ip} - - [${clfTime(a.t, o.tzOffsetMinutes ?? 0)}] "GET ${f.path} HTTP/1.1" ${status} 512`;
    if (o.format === 'common') return common;
    const referer = escapeField(f.headers.referer ?? '-');
    const ua = escapeField(f.headers['user-agent'] ?? 'Mozilla/5.0 (X11; Linux x86_64) fleetlimit-replay/1');
    return `${common} "${referer}" "${ua}"`;
  }
  if (o.format === 'envoy') {
    const h = f.headers;
    const xff = h['x-forwarded-for'] ?? f.ip;
    return `[${isoTime(a.t)}] "GET ${f.path} HTTP/1.1" ${status} - 0 512 3 2 "${xff}" "${h['user-agent'] ?? 'curl/8.5.0'}" "${h['x-request-id'] ?? '4a7b2c1e-0000-4000-8000-000000000000'}" "${h[':authority'] ?? 'api.example.com'}" "10.0.2.1:8080"`;
  }
  const rec: Record<string, unknown> = {};
  const time = o.jsonTime ?? 'ms';
  rec[o.timeField ?? 'time'] = time === 'ms' ? a.t : time === 's' ? a.t / 1000 : isoTime(a.t);
  if (a.status !== undefined) rec[o.statusField ?? 'status'] = a.status;
  Object.assign(rec, f.jsonFields);
  return JSON.stringify(rec);
}

/** Writes the arrivals as a log file (gzipped if asked), streaming; resolves to the lines written. */
export async function writeLog(
  file: string,
  arrivals: Iterable<Arrival>,
  o: WriteLogOptions,
): Promise<number> {
  const parts = parseKeySpec(o.key ?? 'ip', o.format);
  let lines = 0;
  function* chunks(): Generator<string> {
    let buf: string[] = [];
    for (const a of arrivals) {
      buf.push(formatLine(a, o, parts));
      lines++;
      if (buf.length === 1000) {
        yield `${buf.join('\n')}\n`;
        buf = [];
      }
    }
    if (buf.length > 0) yield `${buf.join('\n')}\n`;
  }
  const out = createWriteStream(file);
  if (o.gzip) await pipeline(Readable.from(chunks()), createGzip(), out);
  else await pipeline(Readable.from(chunks()), out);
  return lines;
}
