// No line stops a reader: valid lines among random bytes (binary junk, broken UTF-8, stray quotes and
// brackets, lines past the length limit) are all read, everything else is counted malformed, and the
// arrivals still come out in time order.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { LOG_FORMATS } from '../../src/replay/parse/options.js';
import { formatLine } from '../../src/replay/parse/write-log.js';
import { seeded } from '../support/fc-seed.js';
import { LogDir, readAll } from '../support/replay-logs.js';

const logs = new LogDir();
afterAll(() => logs.remove());

let fileNo = 0;
const T0 = Date.UTC(2026, 0, 5);
/** Bytes that look like log text more often than not: quotes, brackets, digits, spaces, newlines. */
const junkByte = fc.oneof(
  fc.integer({ min: 0, max: 255 }),
  fc.constantFrom(...Buffer.from('[]" -:/0123456789\n{}')),
);
const junk = fc.oneof(
  fc.array(junkByte, { maxLength: 300 }),
  // a long run without a newline: past the length limit
  fc.array(
    fc.integer({ min: 0, max: 255 }).filter((b) => b !== 10),
    { minLength: 900, maxLength: 3000 },
  ),
);
/** A valid line's time, and maybe a cut or a byte changed at a position (`at` modulo its length). */
const segment = fc.oneof(
  fc.record({ t: fc.integer({ min: 0, max: 120_000 }) }),
  fc.record({
    t: fc.integer({ min: 0, max: 120_000 }),
    at: fc.noBias(fc.nat({ max: 10_000 })),
    byte: fc.option(junkByte, { nil: undefined }),
  }),
  junk.map((b) => ({ junk: Buffer.from(b) })),
);

describe('junk among the lines (property)', () => {
  for (const format of LOG_FORMATS) {
    it(`${format}: every valid line read, the rest counted, in time order`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(segment, { minLength: 1, maxLength: 30 }),
          fc.boolean(),
          async (segments, gzip) => {
            // lines left whole: those neither cut nor changed
            const valid = segments.filter((s) => 't' in s && !('at' in s)).length;
            const parts = segments.map((s) => {
              if ('junk' in s) return s.junk;
              const line = Buffer.from(
                formatLine({ t: T0 + s.t, key: `10.0.0.${s.t % 256}`, gateway: 0, status: 200 }, { format }),
              );
              if (!('at' in s)) return line;
              const i = s.at % line.length;
              if (s.byte === undefined) return line.subarray(0, i);
              const changed = Buffer.from(line);
              changed[i] = s.byte;
              return changed;
            });
            const bytes = Buffer.concat(parts.flatMap((p) => [p, Buffer.from('\n')]));
            const file = logs.file(`junk-${fileNo++}.log`, bytes, { gzip });
            const { arrivals, stats } = await readAll([file], { format, maxLineLength: 1000 });
            expect(stats.lines).toBe(stats.arrivals + stats.malformed);
            expect(arrivals).toHaveLength(stats.arrivals);
            expect(arrivals.length).toBeGreaterThanOrEqual(valid);
            for (let i = 1; i < arrivals.length; i++)
              expect(arrivals[i].t).toBeGreaterThanOrEqual(arrivals[i - 1].t);
            for (const m of stats.firstMalformed) {
              expect(m.line).toBeGreaterThanOrEqual(1);
              expect(m.line).toBeLessThanOrEqual(stats.lines);
              expect(m.text.length).toBeLessThanOrEqual(201);
            }
          },
        ),
        seeded({ numRuns: 40 }),
      );
    });
  }
});
