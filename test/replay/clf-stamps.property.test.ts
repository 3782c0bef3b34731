// CLF stamps read one after another: parseClfTime reads a stamp from the one before it when they share
// their day, hour and zone, and must give what reading it whole gives, for real stamps and broken ones
// alike (a minute of 60, a second of 61, a letter among the digits, another zone).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MONTH_NAMES, parseClfTime } from '../../src/replay/parse/timestamps.js';
import { seeded } from '../support/fc-seed.js';

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** The stamp read by Date.UTC after checking each field: the reader's rules written another way. */
function expected(stamp: string): number {
  const m = /^(\d\d)\/([A-Z][a-z][a-z])\/(\d{4}):(\d\d):(\d\d):(\d\d) ([+-])(\d\d)(\d\d)$/.exec(stamp);
  if (m === null) return Number.NaN;
  const [day, mon, year, h, mi, s, zh, zm] = [1, 2, 3, 4, 5, 6, 8, 9].map((i) => m[i]);
  const month = MONTH_NAMES.indexOf(mon);
  const [d, y, hh, mm, ss, zhh, zmm] = [day, year, h, mi, s, zh, zm].map(Number);
  const days = new Date(Date.UTC(y, month + 1, 0)).getUTCDate();
  if (month < 0 || d < 1 || d > days || hh > 23 || mm > 59 || ss > 60 || zhh > 23 || zmm > 59)
    return Number.NaN;
  const utc = Date.UTC(y, month, d, hh, mm, 0) + ss * 1000;
  return utc - (m[7] === '-' ? -1 : 1) * (zhh * 60 + zmm) * 60_000;
}

/** A stamp's fields, each a few values in and out of range. */
const FIELDS = {
  day: [1, 5, 29, 30, 31],
  mon: ['Jan', 'Feb', 'Dec', 'jan'],
  year: [2024, 2026],
  h: [0, 13, 23, 24],
  mi: [0, 7, 59, 60, 99],
  s: [0, 36, 59, 60, 61],
  zone: ['+0100', '-0330', '+0000', '+2400', '+01:0'],
};
type Fields = { [K in keyof typeof FIELDS]: (typeof FIELDS)[K][number] };
const FIRST: Fields = { day: 5, mon: 'Jan', year: 2026, h: 13, mi: 0, s: 0, zone: '+0100' };

/** One step from the stamp before: a field or two changed (mostly the minute or second), maybe a character broken. */
const step = fc.record({
  field: fc.constantFrom<keyof Fields>('s', 's', 's', 'mi', 'mi', 'h', 'day', 'mon', 'year', 'zone'),
  pick: fc.nat(),
  junk: fc.option(fc.tuple(fc.integer({ min: 0, max: 25 }), fc.constantFrom('x', ':', '/', ' ', '9')), {
    freq: 4,
  }),
});

/** The stamps a run of steps writes, from FIRST. */
function stamps(steps: { field: keyof Fields; pick: number; junk: [number, string] | null }[]): string[] {
  let f: Fields = FIRST;
  return steps.map(({ field, pick, junk }) => {
    const values = FIELDS[field] as readonly (string | number)[];
    f = { ...f, [field]: values[pick % values.length] };
    const text = `${pad(f.day, 2)}/${f.mon}/${f.year}:${pad(f.h, 2)}:${pad(f.mi, 2)}:${pad(f.s, 2)} ${f.zone}`;
    return junk === null ? text : text.slice(0, junk[0]) + junk[1] + text.slice(junk[0] + 1);
  });
}

describe('parseClfTime on a run of stamps', () => {
  it('reads each stamp as it reads it whole, whatever came before', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 60 }), (steps) => {
        for (const s of stamps(steps)) {
          const line = `[${s}]`;
          expect(parseClfTime(line, 1, line.length - 1)).toBe(expected(s));
        }
      }),
      seeded({ numRuns: 400 }),
    );
  });
});
