/** results.csv: one line per run, every RunRow field, in a fixed column order (many-keys fields empty on single-key runs). */
import { MANY_KEY_METRICS } from '../sim/many-keys.js';
import { METRIC_KEYS } from '../sim/run.js';
import type { RunRow } from '../sim/types.js';
import type { CoversEvery } from '../util/covers-every.js';
import { CONFIG_KEYS } from './aggregate.js';

// the configuration's fields in the grouping's order: a parameter added there gets its column here too
export const CSV_COLUMNS = [
  'version',
  ...CONFIG_KEYS,
  'seed',
  ...METRIC_KEYS,
  ...MANY_KEY_METRICS,
] as const satisfies readonly (keyof RunRow)[];

// Adding a field to RunRow without a CSV column fails the type-check here rather than dropping data silently.
export const CSV_COVERS_EVERY_FIELD: CoversEvery<RunRow, (typeof CSV_COLUMNS)[number]> = true;

/** RFC 4180 quoting: a field with a comma, quote, CR or LF, or edge spaces, is quoted with inner quotes doubled. */
export function csvField(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function rowsToCsv(rows: readonly RunRow[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const row of rows) lines.push(CSV_COLUMNS.map((c) => csvField(row[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** Parses RFC 4180 text into records of fields; the inverse of the quoting above. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else field += c;
      i++;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' || c === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      if (c === '\r' && text[i + 1] === '\n') i++;
    } else field += c;
    i++;
  }
  if (field !== '' || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records;
}
