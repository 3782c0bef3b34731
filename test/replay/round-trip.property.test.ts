// write-log and the readers are each other's inverse: arrivals written in any format (any zone,
// gzipped or not, one file per gateway) read back as the same arrivals, in time order.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Arrival } from '../../src/replay/arrival.js';
import type { LogFormat } from '../../src/replay/parse/options.js';
import { type WriteLogOptions, writeLog } from '../../src/replay/parse/write-log.js';
import { seeded } from '../support/fc-seed.js';
import { LogDir, readAll } from '../support/replay-logs.js';

const logs = new LogDir();
afterAll(() => logs.remove());

let fileNo = 0;
const T_MIN = Date.UTC(1990, 0, 1);
const T_MAX = Date.UTC(2090, 0, 1);

const ipKey = fc.oneof(fc.ipV4(), fc.ipV6());
/** Header values: any text but a line break (quotes and backslashes escaped by the writer). */
const textKey = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 30 })
  .filter((s) => !/[\r\n]/.test(s) && s.trim() === s && s !== '');
const pathKey = fc.webPath().filter((p) => p !== '' && !/[\s?"]/.test(p));

interface Case {
  format: LogFormat;
  key: string;
  keys: fc.Arbitrary<string>;
  /** Whole seconds for formats whose stamps have no ms. */
  wholeSeconds: boolean;
  status: fc.Arbitrary<number | undefined>;
  write?: Partial<WriteLogOptions>;
}

const CASES: Case[] = [
  {
    format: 'combined',
    key: 'ip',
    keys: ipKey,
    wholeSeconds: true,
    status: fc.integer({ min: 100, max: 599 }),
  },
  {
    format: 'combined',
    key: 'header:user-agent',
    keys: textKey,
    wholeSeconds: true,
    status: fc.integer({ min: 100, max: 599 }),
  },
  {
    format: 'combined',
    key: 'path+ip',
    keys: fc.tuple(pathKey, fc.ipV4()).map(([p, ip]) => `${p} ${ip}`),
    wholeSeconds: true,
    status: fc.integer({ min: 100, max: 599 }),
  },
  {
    format: 'common',
    key: 'ip',
    keys: ipKey,
    wholeSeconds: true,
    status: fc.integer({ min: 100, max: 599 }),
  },
  {
    format: 'envoy',
    key: 'ip',
    keys: fc.ipV4(),
    wholeSeconds: false,
    status: fc.integer({ min: 0, max: 599 }),
  },
  {
    format: 'envoy',
    key: 'header:x-request-id',
    keys: fc.uuid(),
    wholeSeconds: false,
    status: fc.integer({ min: 0, max: 599 }),
  },
  {
    format: 'json',
    key: 'field:client',
    keys: fc.string({ minLength: 1 }),
    wholeSeconds: false,
    status: fc.option(fc.integer({ min: 0, max: 999 }), { nil: undefined }),
    write: { jsonTime: 'ms' },
  },
  {
    format: 'json',
    key: 'ip',
    keys: ipKey,
    wholeSeconds: true,
    status: fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }),
    write: { jsonTime: 'iso' },
  },
  {
    format: 'json',
    key: 'ip',
    keys: ipKey,
    wholeSeconds: true,
    status: fc.constant(undefined),
    write: { jsonTime: 's' },
  },
];

function arrivalsOf(c: Case, gateways: number) {
  const t = fc
    .integer({ min: T_MIN, max: T_MAX })
    .map((x) => (c.wholeSeconds ? Math.floor(x / 1000) * 1000 : x));
  const arrival = fc.record({
    t,
    key: c.keys,
    gateway: fc.integer({ min: 0, max: gateways - 1 }),
    status: c.status,
  });
  return fc.array(arrival, { minLength: 1, maxLength: 40 }).map((as) => as.map((a) => ({ ...a }) as Arrival));
}

/** Ascending t, ties by gateway (file order), then as written. */
function expectedOrder(as: Arrival[]): Arrival[] {
  return as
    .map((a, i) => ({ a, i }))
    .sort((x, y) => x.a.t - y.a.t || x.a.gateway - y.a.gateway || x.i - y.i)
    .map((x) => x.a);
}

describe('write-log then read: the same arrivals (property)', () => {
  for (const c of CASES) {
    it(`${c.format}, --key ${c.key}${c.write?.jsonTime ? `, time in ${c.write.jsonTime}` : ''}`, async () => {
      await fc.assert(
        fc.asyncProperty(
          arrivalsOf(c, 3),
          fc.integer({ min: -12 * 60, max: 14 * 60 }),
          fc.boolean(),
          async (arrivals, tzOffsetMinutes, gzip) => {
            const files: string[] = [];
            for (let g = 0; g < 3; g++) {
              const file = `${logs.dir}/rt-${fileNo++}.log`;
              await writeLog(
                file,
                arrivals.filter((a) => a.gateway === g),
                { format: c.format, key: c.key, tzOffsetMinutes, gzip, ...c.write },
              );
              files.push(file);
            }
            // a gateway with no arrivals wrote an empty file, which is an error: give it a line of its own
            const used = files.filter((_, g) => arrivals.some((a) => a.gateway === g));
            const expected = expectedOrder(arrivals).map((a) => ({
              ...a,
              gateway: used.indexOf(files[a.gateway]),
            }));
            const { arrivals: got, stats } = await readAll(used, {
              format: c.format,
              key: c.key,
              reorderWindowMs: T_MAX,
              timeUnit: c.write?.jsonTime,
            });
            expect(stats.malformed).toBe(0);
            expect(got).toEqual(expected);
          },
        ),
        seeded({ numRuns: 25 }),
      );
    });
  }
});
