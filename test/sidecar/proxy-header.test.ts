import { describe, expect, it } from 'vitest';
import { headerText } from '../../src/sidecar/proxy-header.js';

describe('headerText: a body as one header line', () => {
  it('keeps printable ASCII, drops the final newline, turns other breaks and tabs into spaces', () => {
    expect(headerText('Too Many Requests\n', 100)).toBe('Too Many Requests');
    expect(headerText('a\r\nb\tc\n', 100)).toBe('a  b c');
  });

  it('escapes every other code unit as \\uXXXX, so a JSON body stays the same JSON', () => {
    const body = JSON.stringify({ msg: 'trop de requêtes ✋', emoji: '😀', ctl: '\u0001' });
    const line = headerText(body, 1000) as string;
    expect(line).toMatch(/^[\x20-\x7e]*$/);
    expect(JSON.parse(line)).toEqual(JSON.parse(body));
  });

  it('is null when the line would be longer than max, never a cut body', () => {
    expect(headerText('x'.repeat(10), 10)).toBe('x'.repeat(10));
    expect(headerText('x'.repeat(11), 10)).toBeNull();
    expect(headerText('é'.repeat(2), 11)).toBeNull();
  });
});
