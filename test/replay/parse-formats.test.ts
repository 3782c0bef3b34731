// Each log format on real-looking lines: times (zones), keys, statuses, and malformed lines counted
// with their line numbers.
import { afterAll, describe, expect, it } from 'vitest';
import { LogDir, readAll } from '../support/replay-logs.js';

const logs = new LogDir();
afterAll(() => logs.remove());

const utc = (y: number, mo: number, d: number, h: number, mi: number, s: number, ms = 0) =>
  Date.UTC(y, mo - 1, d, h, mi, s, ms);

const COMBINED = [
  '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif?x=1 HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"',
  '192.0.2.44 - - [10/Oct/2000:20:55:37 +0000] "POST /api/v1/login HTTP/1.1" 429 0 "-" "curl/8.5.0"',
  '2001:db8::1 - - [11/Oct/2000:02:25:38 +0530] "GET /a%20b HTTP/2.0" 304 - "-" "say \\"hi\\" \\\\o/"',
  '198.51.100.9 - - [10/Oct/2000:20:55:39 +0000] "\\x16\\x03\\x01" 400 157 "-" "-"',
];

describe('combined', () => {
  it('reads time in its zone, the key and the status', async () => {
    const file = logs.file('combined.log', COMBINED);
    const { arrivals, stats } = await readAll([file], { format: 'combined' });
    expect(arrivals).toEqual([
      { t: utc(2000, 10, 10, 20, 55, 36), key: '127.0.0.1', gateway: 0, status: 200 },
      { t: utc(2000, 10, 10, 20, 55, 37), key: '192.0.2.44', gateway: 0, status: 429 },
      { t: utc(2000, 10, 10, 20, 55, 38), key: '2001:db8::1', gateway: 0, status: 304 },
      { t: utc(2000, 10, 10, 20, 55, 39), key: '198.51.100.9', gateway: 0, status: 400 },
    ]);
    expect(stats).toMatchObject({ lines: 4, arrivals: 4, malformed: 0, reordered: 0, late: 0 });
  });

  it('keys by path (query dropped), path+ip, referer and user-agent (escapes undone)', async () => {
    const file = logs.file('combined-keys.log', COMBINED);
    const keys = async (key: string) =>
      (await readAll([file], { format: 'combined', key })).arrivals.map((a) => a.key);
    expect(await keys('path')).toEqual(['/apache_pb.gif', '/api/v1/login', '/a%20b', '\\x16\\x03\\x01']);
    expect(await keys('path+ip')).toEqual([
      '/apache_pb.gif 127.0.0.1',
      '/api/v1/login 192.0.2.44',
      '/a%20b 2001:db8::1',
      '\\x16\\x03\\x01 198.51.100.9',
    ]);
    expect(await keys('header:Referer')).toEqual(['http://www.example.com/start.html', '-', '-', '-']);
    expect(await keys('header:user-agent')).toEqual([
      'Mozilla/4.08 [en] (Win98; I ;Nav)',
      'curl/8.5.0',
      'say "hi" \\o/',
      '-',
    ]);
  });

  it('counts malformed lines with their numbers and reasons, and keeps reading', async () => {
    const good = (s: number) =>
      `10.0.0.${s} - - [05/Jan/2026:12:00:0${s} +0000] "GET / HTTP/1.1" 200 5 "-" "ua"`;
    const lines = [
      good(1),
      '10.0.0.2 - - [05/Jan/2026:12:00:02 +0000] "GET / HTT', // truncated
      '10.0.0.3 - - [31/Feb/2026:12:00:03 +0000] "GET / HTTP/1.1" 200 5 "-" "ua"', // no 31 February
      '\u0000\u0001\u00ff\ufffd\u0002 binary junk',
      '10.0.0.5 - - [05/Jan/2026:12:00:05 +0000] "GET / HTTP/1.1" 200 5', // combined without its headers
      good(6),
      `10.0.0.7 - - [05/Jan/2026:12:00:07 +0000] "GET /${'x'.repeat(70_000)} HTTP/1.1" 200 5 "-" "ua"`,
      '10.0.0.8 - - [05/Jan/2026:12:00:08 +0000] "GET / HTTP/1.1" 2x0 5 "-" "ua"',
      '',
      good(9),
      '10.0.0.9 - - [05/Foo/2026:12:00:09 +0000] "GET / HTTP/1.1" 200 5 "-" "ua"',
      '10.0.0.9 - - [05/Jan/2026:25:00:09 +0000] "GET / HTTP/1.1" 200 5 "-" "ua"',
    ];
    const file = logs.file('combined-bad.log', lines);
    const { arrivals, stats } = await readAll([file], { format: 'combined', keepMalformed: 5 });
    expect(arrivals.map((a) => a.key)).toEqual(['10.0.0.1', '10.0.0.6', '10.0.0.9']);
    expect(stats).toMatchObject({ lines: 12, arrivals: 3, malformed: 9 });
    expect(stats.firstMalformed.map((m) => [m.line, m.reason])).toEqual([
      [2, 'truncated line'],
      [3, 'bad date'],
      [4, 'binary data (missing fields)'],
      [5, 'missing fields'],
      [7, 'line longer than 65536 characters'],
    ]);
    expect(stats.firstMalformed.every((m) => m.file === file)).toBe(true);
    // the overlong line's text is cut for the report
    expect(stats.firstMalformed[4].text.length).toBeLessThanOrEqual(201);
    expect(stats.firstMalformed[4].text.startsWith('10.0.0.7 - - [05/Jan/2026')).toBe(true);
  });

  it('takes CRLF line ends, a byte-order mark and a last line without its newline', async () => {
    const a = '10.0.0.1 - - [05/Jan/2026:12:00:01 +0000] "GET / HTTP/1.1" 200 5 "-" "ua"';
    const b = '10.0.0.2 - - [05/Jan/2026:12:00:02 +0000] "GET / HTTP/1.1" 201 5 "-" "ua"';
    const file = logs.file('crlf.log', `\ufeff${a}\r\n${b}`);
    const { arrivals, stats } = await readAll([file], { format: 'combined' });
    expect(arrivals.map((x) => x.status)).toEqual([200, 201]);
    expect(arrivals[0].key).toBe('10.0.0.1');
    expect(stats.malformed).toBe(0);
  });
});

describe('timezones', () => {
  it('puts the same instant written in five zones at one t', async () => {
    const zones = ['-0700 13:55:36', '+0000 20:55:36', '+0530 02:25:36', '-1200 08:55:36', '+1400 10:55:36'];
    const lines = zones.map((z) => {
      const [zone, time] = z.split(' ');
      const day = time.startsWith('02') || time.startsWith('10') ? '11' : '10';
      return `10.0.0.1 - - [${day}/Oct/2000:${time} ${zone}] "GET / HTTP/1.1" 200 5`;
    });
    const file = logs.file('zones.log', lines);
    const { arrivals, stats } = await readAll([file], { format: 'common' });
    expect(stats.malformed).toBe(0);
    expect(new Set(arrivals.map((a) => a.t))).toEqual(new Set([utc(2000, 10, 10, 20, 55, 36)]));
  });

  it('crosses a year and a leap day in a zone', async () => {
    const file = logs.file('leap.log', [
      '10.0.0.1 - - [29/Feb/2024:23:30:00 -0100] "GET / HTTP/1.1" 200 5',
      '10.0.0.1 - - [01/Jan/2000:00:30:00 +0100] "GET / HTTP/1.1" 200 5',
    ]);
    const { arrivals } = await readAll([file], { format: 'common', reorderWindowMs: 1e13 });
    expect(arrivals.map((a) => a.t)).toEqual([utc(1999, 12, 31, 23, 30, 0), utc(2024, 3, 1, 0, 30, 0)]);
  });
});

describe('common', () => {
  it('reads a common line and ignores what follows the byte count', async () => {
    const file = logs.file('common.log', [
      '127.0.0.1 user-identifier frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326',
      '127.0.0.2 - - [10/Oct/2000:13:55:37 -0700] "GET / HTTP/1.0" 503 0 "-" "extra"',
      '127.0.0.3 - - [10/Oct/2000:13:55:38 -0700] "GET / HTTP/1.0" 200',
    ]);
    const { arrivals, stats } = await readAll([file], { format: 'common', key: 'path+ip' });
    expect(arrivals.map((a) => [a.key, a.status])).toEqual([
      ['/apache_pb.gif 127.0.0.1', 200],
      ['/ 127.0.0.2', 503],
    ]);
    expect(stats.firstMalformed.map((m) => [m.line, m.reason])).toEqual([[3, 'truncated line']]);
  });
});

describe('envoy', () => {
  const LINES = [
    '[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2http" "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "locations" "tcp://10.0.2.1:80"',
    '[2016-04-15T20:17:00.311Z] "GET /v1/x?page=2 HTTP/1.1" 429 RL 0 18 0 - "203.0.113.5, 10.0.0.1" "curl/8.5.0" "id-2" "api.example.com" "-"',
    '[2016-04-15T20:17:01.000Z] "GET / HTTP/1.1" 0 DC 0 0 12 - "-" "-" "id-3" "api.example.com" "-"',
    '[2016-04-15T20:17:02.5Z] "GET / HTTP/1.1" 503 UF,URX 0 91 5 - "-" "Go-http-client/1.1" "id-4" "api.example.com" "10.0.2.9:80"',
  ];

  it('reads ms stamps, status (0: no response) and X-Forwarded-For as ip', async () => {
    const file = logs.file('envoy.log', LINES);
    const { arrivals, stats } = await readAll([file], { format: 'envoy' });
    expect(stats.malformed).toBe(0);
    expect(arrivals).toEqual([
      { t: utc(2016, 4, 15, 20, 17, 0, 310), key: '10.0.35.28', gateway: 0, status: 204 },
      { t: utc(2016, 4, 15, 20, 17, 0, 311), key: '203.0.113.5', gateway: 0, status: 429 },
      { t: utc(2016, 4, 15, 20, 17, 1, 0), key: '-', gateway: 0, status: 0 },
      { t: utc(2016, 4, 15, 20, 17, 2, 500), key: '-', gateway: 0, status: 503 },
    ]);
  });

  it('keys by its headers and path', async () => {
    const file = logs.file('envoy-keys.log', LINES);
    const keys = async (key: string) =>
      (await readAll([file], { format: 'envoy', key })).arrivals.map((a) => a.key);
    expect(await keys('header:host+path')).toEqual([
      'locations /api/v1/locations',
      'api.example.com /v1/x',
      'api.example.com /',
      'api.example.com /',
    ]);
    expect(await keys('header:x-request-id')).toEqual([
      'cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2',
      'id-2',
      'id-3',
      'id-4',
    ]);
    expect(await keys('header:User-Agent')).toEqual(['nsq2http', 'curl/8.5.0', '-', 'Go-http-client/1.1']);
  });

  it('counts malformed envoy lines with their numbers', async () => {
    const file = logs.file('envoy-bad.log', [
      LINES[0],
      '[2016-04-15T20:17:00.310Z] "POST /api HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2', // truncated
      '[2016-13-15T20:17:00.310Z] "POST /api HTTP/2" 204 - 154 0 226 100 "a" "b" "c" "d" "e"', // month 13
      '[2016-04-15T20:17:00.310Z] "POST /api HTTP/2" 204 - 154 0 226 100', // no headers
      '[2016-04-15T20:17:00.310Z] "POST /api HTTP/2" 2x4 - 1 0 2 1 "a" "b" "c" "d" "e"',
      '2016-04-15T20:17:00.310Z "POST /api HTTP/2" 204 - 1 0 2 1 "a" "b" "c" "d" "e"',
    ]);
    const { stats } = await readAll([file], { format: 'envoy' });
    expect(stats.firstMalformed.map((m) => [m.line, m.reason])).toEqual([
      [2, 'truncated line'],
      [3, 'bad date'],
      [4, 'missing fields'],
      [5, 'bad status'],
      [6, 'missing fields'],
    ]);
  });
});

describe('json lines', () => {
  it('reads epoch s, epoch ms and ISO-8601 times, with fields named by flags', async () => {
    const file = logs.file('json.log', [
      '{"ts": 1700000000, "code": 200, "client": "10.0.0.1"}',
      '{"ts": 1700000000123, "code": "429", "client": "10.0.0.2"}',
      '{"ts": "2023-11-14T22:13:20.5+01:00", "client": "10.0.0.3"}',
      '{"ts": "1700000001.25", "code": 200, "client": 42}',
      '{"ts": 1700000002, "req": {"ip": "10.0.0.5"}, "client": "x"}',
    ]);
    const { arrivals, stats } = await readAll([file], {
      format: 'json',
      key: 'field:client',
      timeField: 'ts',
      statusField: 'code',
      reorderWindowMs: 1e10,
    });
    expect(stats.malformed).toBe(0);
    expect(arrivals).toEqual([
      { t: 1699996400500, key: '10.0.0.3', gateway: 0, status: undefined },
      { t: 1700000000000, key: '10.0.0.1', gateway: 0, status: 200 },
      { t: 1700000000123, key: '10.0.0.2', gateway: 0, status: 429 },
      { t: 1700000001250, key: '42', gateway: 0, status: 200 },
      { t: 1700000002000, key: 'x', gateway: 0, status: undefined },
    ]);
    const nested = await readAll([file], {
      format: 'json',
      key: 'field:req.ip',
      timeField: 'ts',
      statusField: 'code',
      reorderWindowMs: 1e10,
    });
    expect(nested.arrivals.map((a) => a.key)).toEqual(['10.0.0.5']);
  });

  it('counts lines that are not JSON objects or lack the fields', async () => {
    const file = logs.file('json-bad.log', [
      '{"time": 1700000000, "ip": "10.0.0.1"}',
      '{"time": 1700000000, "ip": "10.0.0.1"', // truncated
      '[1, 2]',
      '{"ip": "10.0.0.1"}',
      '{"time": "yesterday", "ip": "10.0.0.1"}',
      '{"time": 1700000000}',
      '{"time": 1700000000, "ip": "10.0.0.1", "status": "teapot"}',
    ]);
    const { arrivals, stats } = await readAll([file], { format: 'json' });
    expect(arrivals).toHaveLength(1);
    expect(stats.firstMalformed.map((m) => [m.line, m.reason])).toEqual([
      [2, 'not JSON (or a truncated line)'],
      [3, 'not a JSON object'],
      [4, 'missing time field "time"'],
      [5, 'bad date in "time"'],
      [6, 'missing key field "ip"'],
      [7, 'bad status in "status"'],
    ]);
  });

  it('reads a time unit it is told, not guessed', async () => {
    const file = logs.file('json-unit.log', ['{"time": 1700000000000, "ip": "a"}', '{"time": 5, "ip": "b"}']);
    const ms = await readAll([file], { format: 'json', timeUnit: 'ms', reorderWindowMs: 1e13 });
    expect(ms.arrivals.map((a) => a.t)).toEqual([5, 1700000000000]);
    const s = await readAll([file], { format: 'json', timeUnit: 's', reorderWindowMs: 1e16 });
    expect(s.arrivals.map((a) => a.t)).toEqual([5000, 1700000000000000]);
    const iso = await readAll([file], { format: 'json', timeUnit: 'iso' });
    expect(iso.stats.malformed).toBe(2);
  });
});
