// --key: a small parser whose errors say what is wrong and what the format can give instead.
import { describe, expect, it } from 'vitest';
import { parseKeySpec } from '../../src/replay/parse/key-spec.js';

describe('parseKeySpec', () => {
  it('reads parts joined by +', () => {
    expect(parseKeySpec('ip', 'combined')).toEqual([{ kind: 'ip' }]);
    expect(parseKeySpec('path+ip', 'combined')).toEqual([{ kind: 'path' }, { kind: 'ip' }]);
    expect(parseKeySpec(' IP + Header:User-Agent ', 'combined')).toEqual([
      { kind: 'ip' },
      { kind: 'header', name: 'user-agent' },
    ]);
    expect(parseKeySpec('header:referrer', 'combined')).toEqual([{ kind: 'header', name: 'referer' }]);
    expect(parseKeySpec('header:host', 'envoy')).toEqual([{ kind: 'header', name: ':authority' }]);
    expect(parseKeySpec('header::authority', 'envoy')).toEqual([{ kind: 'header', name: ':authority' }]);
    expect(parseKeySpec('field:user.id+path', 'json')).toEqual([
      { kind: 'field', name: 'user.id' },
      { kind: 'path' },
    ]);
    // json carries whatever fields it has: a header is a field of that name
    expect(parseKeySpec('header:X-Api-Key', 'json')).toEqual([{ kind: 'field', name: 'X-Api-Key' }]);
  });

  it('says what is wrong, naming the spec', () => {
    const err = (spec: string, format: Parameters<typeof parseKeySpec>[1]) => () =>
      parseKeySpec(spec, format);
    expect(err('', 'combined')).toThrow('--key is empty');
    expect(err('ip+', 'combined')).toThrow('--key ip+: an empty part');
    expect(err('ip:v4', 'combined')).toThrow('--key ip:v4: "ip" takes no name');
    expect(err('cookie', 'combined')).toThrow(
      '--key cookie: unknown part "cookie"; expected ip, path, header:NAME or field:NAME',
    );
    expect(err('header:', 'combined')).toThrow('"header:" needs a name');
    expect(err('header:x-api-key', 'combined')).toThrow(
      '--key header:x-api-key: the combined format writes only referer, user-agent; header "x-api-key" is not in the log',
    );
    expect(err('header:user-agent', 'common')).toThrow(
      'the common format writes no headers (combined writes referer and user-agent)',
    );
    expect(err('header:referer', 'envoy')).toThrow(
      'the envoy format writes only x-forwarded-for, user-agent, x-request-id, :authority',
    );
    expect(err('field:user', 'combined')).toThrow('field:NAME reads a JSON field, so it needs --format json');
  });
});
