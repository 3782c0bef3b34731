// The combined/common readers' two scans: a line of ASCII is read from its bytes (clf-bytes.ts) unless
// that scan declines it, and then as text. Where the byte scan reads a line, the text scan must read
// it as an arrival with the same time, status and key, whatever the line: real lines, lines with
// escapes, queries and odd request lines, and lines broken at random places.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClfParser } from '../../src/replay/parse/clf-parser.js';
import { parseKeySpec } from '../../src/replay/parse/key-spec.js';
import { seeded } from '../support/fc-seed.js';

const KEYS = ['ip', 'path', 'header:referer', 'header:user-agent', 'path+ip', 'header:user-agent+ip'];

/** A combined line from a few choices per field, each part sometimes odd. */
const line = fc
  .record({
    ip: fc.constantFrom('10.0.0.1', '2001:db8::7', '10.20.30.140', '-', ''),
    user: fc.constantFrom('-', 'frank', 'a b'),
    stamp: fc.constantFrom(
      '05/Jan/2026:13:00:00 +0100',
      '05/Jan/2026:13:00:01 +0100',
      '05/Jan/2026:13:61:01 +0100',
      '31/Feb/2026:13:00:00 +0100',
      '05/Jan/2026:13:00:00 +01000',
      '5/Jan/2026:13:00:00 +0100',
    ),
    request: fc.constantFrom(
      'GET / HTTP/1.1',
      'GET /a?b=1 HTTP/1.1',
      'GET /a\\"b HTTP/1.1',
      'POST /x\\\\ HTTP/2',
      '-',
      'GET /only',
      '\\x16\\x03',
    ),
    status: fc.constantFrom('200', '429', '099', '2000', '20x', '-'),
    bytes: fc.constantFrom('512', '-', '0 extra', ''),
    referer: fc.constantFrom('-', 'http://a/?q', 'x\\"y', 'a\\\\'),
    ua: fc.constantFrom('Mozilla/5.0 (X11)', 'curl/8', '', 'q\\"', 'tail\\'),
    common: fc.boolean(),
    cut: fc.option(fc.nat(), { freq: 3 }),
    put: fc.option(fc.tuple(fc.nat(), fc.constantFrom(' ', '"', '[', ']', '\\', '?', '9', '\r')), {
      freq: 3,
    }),
  })
  .map((f) => {
    let s = `${f.ip} - ${f.user} [${f.stamp}] "${f.request}" ${f.status} ${f.bytes}`;
    if (!f.common) s += ` "${f.referer}" "${f.ua}"`;
    if (f.cut !== null) s = s.slice(0, f.cut % (s.length + 1));
    if (f.put !== null) {
      const at = f.put[0] % (s.length + 1);
      s = s.slice(0, at) + f.put[1] + s.slice(at + 1);
    }
    return { text: s, common: f.common };
  });

describe('ClfParser: bytes and text agree', () => {
  it('reads a line from its bytes only as the text scan reads it', () => {
    fc.assert(
      fc.property(line, fc.constantFrom(...KEYS), fc.nat(3), ({ text, common }, spec, pad) => {
        const format = common ? 'common' : 'combined';
        if (spec.includes('header') && common) return;
        const parts = parseKeySpec(spec, format);
        const bytes = new ClfParser(format, parts);
        const chars = new ClfParser(format, parts);
        // the line inside a chunk: bytes around it that are not its own
        const b = Buffer.from(`${'x"] '.slice(0, pad)}${text}\n"] 1`, 'latin1');
        if (!bytes.parseBytes(b, pad, pad + text.length)) return;
        expect(chars.parse(text)).toBe(null);
        expect([bytes.t, bytes.status, bytes.key]).toEqual([chars.t, chars.status, chars.key]);
      }),
      seeded({ numRuns: 3000 }),
    );
  });

  it('reads most real lines from their bytes', () => {
    const parts = parseKeySpec('ip', 'combined');
    const p = new ClfParser('combined', parts);
    const text = '10.0.0.1 - - [05/Jan/2026:13:00:00 +0100] "GET /a?b HTTP/1.1" 200 512 "-" "curl/8"';
    expect(p.parseBytes(Buffer.from(text), 0, text.length)).toBe(true);
    expect([p.t, p.status, p.key]).toEqual([Date.UTC(2026, 0, 5, 12), 200, '10.0.0.1']);
  });
});
