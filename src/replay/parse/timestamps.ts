/**
 * The timestamps access logs write, read by hand (no Date parsing, no regex): CLF's
 * `10/Oct/2000:13:55:36 -0700` and ISO-8601's `2016-04-15T20:17:00.310Z`. Each returns ms since the
 * epoch, or NaN for a stamp that is not a real date, so the caller counts the line malformed.
 */

/** Days from 1970-01-01 to the given civil date (Howard Hinnant's days_from_civil). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** The number of `n` digits at `s[i..]`, or -1 if any is not a digit. */
function digits(s: string, i: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) {
    const c = s.charCodeAt(i + k) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
export const MONTH_NAMES: readonly string[] = MONTHS;

function monthOf(s: string, i: number): number {
  // the three letters as one number, compared with the table's
  const a = s.charCodeAt(i);
  const b = s.charCodeAt(i + 1);
  const c = s.charCodeAt(i + 2);
  for (let m = 0; m < 12; m++) {
    const name = MONTHS[m];
    if (name.charCodeAt(0) === a && name.charCodeAt(1) === b && name.charCodeAt(2) === c) return m + 1;
  }
  return -1;
}

function civilMs(year: number, month: number, day: number, h: number, mi: number, sec: number): number {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return Number.NaN;
  // 60: a leap second, as some clocks write it
  if (h > 23 || mi > 59 || sec > 60) return Number.NaN;
  return (daysFromCivil(year, month, day) * 86400 + h * 3600 + mi * 60 + sec) * 1000;
}

/** The length of the zone zoneAt read last (a number beside its result, not an object per line). */
let zoneLength = 0;

/** `±HHMM` or `±HH:MM` at s[i..]: the offset in minutes east of UTC (its length in zoneLength), or NaN. */
function zoneAt(s: string, i: number, end: number): number {
  const sign = s.charCodeAt(i);
  if (sign !== 43 && sign !== 45) return Number.NaN; // + -
  const hh = digits(s, i + 1, 2);
  const colon = s.charCodeAt(i + 3) === 58 ? 1 : 0;
  const mm = digits(s, i + 3 + colon, 2);
  const length = 5 + colon;
  if (hh < 0 || mm < 0 || hh > 23 || mm > 59 || i + length > end) return Number.NaN;
  zoneLength = length;
  return (sign === 45 ? -1 : 1) * (hh * 60 + mm);
}

/**
 * The last CLF stamp read whole, to read the next from: a log's lines share their stamp's day, hour
 * and zone with the line before (25 lines a second in the bench log), and reading those, the month's
 * name and the days since 1970 was most of a stamp's cost.
 */
const lastStamp = new Uint16Array(26);
/** Its ms, and the ms of its hour (zone applied): NaN until a stamp is read. */
let lastMs = Number.NaN;
let lastHourMs = Number.NaN;

/**
 * CLF's `dd/Mon/yyyy:HH:MM:SS ±HHMM` starting at s[i] and ending before s[end] (the `]`); NaN if it is
 * not one.
 */
export function parseClfTime(s: string, i: number, end: number): number {
  if (end - i !== 26) return Number.NaN;
  if (!Number.isNaN(lastMs)) {
    let k = 0;
    while (k < 26 && s.charCodeAt(i + k) === lastStamp[k]) k++;
    if (k === 26) return lastMs;
    // the same day, hour and zone: only `:MM:SS` (the stamp's [14, 20)) to read
    if (k >= 14 && sameZone(s, i)) return minuteSecond(s, i);
  }
  const t = readClfTime(s, i);
  if (!Number.isNaN(t)) remember(s, i, t);
  return t;
}

/**
 * parseClfTime of the 26 ASCII bytes at b[i]: the last stamp's ms when they are its characters, else
 * the stamp read as text.
 */
export function parseClfTimeBytes(b: Buffer, i: number): number {
  if (!Number.isNaN(lastMs)) {
    let k = 0;
    while (k < 26 && b[i + k] === lastStamp[k]) k++;
    if (k === 26) return lastMs;
  }
  return parseClfTime(b.toString('latin1', i, i + 26), 0, 26);
}

/** Whether s's stamp at i has the last stamp's ` ±HHMM` (its [20, 26)). */
function sameZone(s: string, i: number): boolean {
  for (let k = 20; k < 26; k++) if (s.charCodeAt(i + k) !== lastStamp[k]) return false;
  return true;
}

/** A stamp that differs from the last only in `:MM:SS`: read those onto the last one's hour. */
function minuteSecond(s: string, i: number): number {
  if (s.charCodeAt(i + 14) !== 58 || s.charCodeAt(i + 17) !== 58) return Number.NaN;
  const mi = digits(s, i + 15, 2);
  const sec = digits(s, i + 18, 2);
  // 60: a leap second, as civilMs allows it
  if (mi < 0 || sec < 0 || mi > 59 || sec > 60) return Number.NaN;
  // integers far below 2^53: the same ms civilMs gives, to the bit
  const t = lastHourMs + (mi * 60 + sec) * 1000;
  for (let k = 14; k < 20; k++) lastStamp[k] = s.charCodeAt(i + k);
  lastMs = t;
  return t;
}

function remember(s: string, i: number, t: number): void {
  for (let k = 0; k < 26; k++) lastStamp[k] = s.charCodeAt(i + k);
  lastMs = t;
  lastHourMs = t - (digits(s, i + 15, 2) * 60 + digits(s, i + 18, 2)) * 1000;
}

/** parseClfTime's stamp read in full (26 characters at s[i]). */
function readClfTime(s: string, i: number): number {
  if (s.charCodeAt(i + 2) !== 47 || s.charCodeAt(i + 6) !== 47) return Number.NaN;
  if (s.charCodeAt(i + 11) !== 58 || s.charCodeAt(i + 14) !== 58 || s.charCodeAt(i + 17) !== 58)
    return Number.NaN;
  if (s.charCodeAt(i + 20) !== 32) return Number.NaN;
  const day = digits(s, i, 2);
  const month = monthOf(s, i + 3);
  const year = digits(s, i + 7, 4);
  const h = digits(s, i + 12, 2);
  const mi = digits(s, i + 15, 2);
  const sec = digits(s, i + 18, 2);
  if (day < 0 || month < 0 || year < 0 || h < 0 || mi < 0 || sec < 0) return Number.NaN;
  const zone = zoneAt(s, i + 21, i + 26);
  if (Number.isNaN(zone) || zoneLength !== 5) return Number.NaN;
  return civilMs(year, month, day, h, mi, sec) - zone * 60_000;
}

/** Set by parseIsoTime: whether the stamp it read had no fraction of a second. */
export const isoResult = { wholeSecond: false };

/**
 * ISO-8601 `YYYY-MM-DDTHH:MM:SS[.fff…][Z|±HH:MM|±HHMM]` (a space for the T too) in s[i..end); no zone
 * is read as UTC. NaN if it is not one. Sets isoResult.wholeSecond.
 */
export function parseIsoTime(s: string, i: number, end: number): number {
  if (end - i < 19) return Number.NaN;
  if (s.charCodeAt(i + 4) !== 45 || s.charCodeAt(i + 7) !== 45) return Number.NaN;
  const t = s.charCodeAt(i + 10);
  if (t !== 84 && t !== 32 && t !== 116) return Number.NaN; // T, space, t
  if (s.charCodeAt(i + 13) !== 58 || s.charCodeAt(i + 16) !== 58) return Number.NaN;
  const year = digits(s, i, 4);
  const month = digits(s, i + 5, 2);
  const day = digits(s, i + 8, 2);
  const h = digits(s, i + 11, 2);
  const mi = digits(s, i + 14, 2);
  const sec = digits(s, i + 17, 2);
  if (year < 0 || month < 0 || day < 0 || h < 0 || mi < 0 || sec < 0) return Number.NaN;
  let ms = civilMs(year, month, day, h, mi, sec);
  let j = i + 19;
  isoResult.wholeSecond = true;
  const dot = s.charCodeAt(j);
  if (dot === 46 || dot === 44) {
    // a fraction: its first three digits are the ms, the rest are dropped (not rounded)
    j++;
    const from = j;
    let scale = 100;
    let c = s.charCodeAt(j) - 48;
    while (j < end && c >= 0 && c <= 9) {
      ms += c * scale;
      scale = scale === 1 ? 0 : scale / 10;
      j++;
      c = s.charCodeAt(j) - 48;
    }
    if (j === from) return Number.NaN;
    isoResult.wholeSecond = false;
  }
  if (j === end) return ms;
  const z = s.charCodeAt(j);
  if ((z === 90 || z === 122) && j + 1 === end) return ms; // Z
  const zone = zoneAt(s, j, end);
  if (Number.isNaN(zone) || j + zoneLength !== end) return Number.NaN;
  return ms - zone * 60_000;
}
