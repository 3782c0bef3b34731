import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, csvField, parseCsv, rowsToCsv } from '../../src/report/csv.js';
import type { RunRow } from '../../src/sim/types.js';
import { syntheticRows } from './synthetic.js';

describe('rowsToCsv', () => {
  const rows: RunRow[] = syntheticRows({
    designs: ['shared-counter', 'leases'],
    gateways: [8],
    syncs: [1],
    floodLoads: [10],
    honestLoads: [0.8],
    seeds: [1, 2],
    busy: false,
  });
  // Versions come from package.json and git; make sure odd ones survive.
  rows[0]!.version = '1.0.0, "dirty"\nbuild';
  rows[1]!.version = ' padded ';
  // a many-keys row carries the many-keys parameters and metrics; single-key rows leave those cells empty
  rows.push({
    ...rows[0]!,
    group: 'keys',
    version: '0.1.0',
    keys: 1000,
    popularity: 1.2,
    floodKeys: 10,
    floodPick: 'random',
    reads: 'on-request',
    syncKeysPerSec: 383.1,
    keyOpsPerSec: 383.1,
    keysPerSync: 47.89,
    keysPerSyncMax: 60,
    keysPerGateway: 47.89,
    keysPerGatewayMax: 60,
    bytesPerGateway: 22_077.3,
    storeKeys: 160.7,
    storeKeysMax: 170,
    unfloodedRejectedPct: 0.026,
  });

  it('has a header of every RunRow field in a fixed order', () => {
    const [header] = parseCsv(rowsToCsv(rows));
    expect(header).toEqual([...CSV_COLUMNS]);
    expect(new Set(CSV_COLUMNS).size).toBe(CSV_COLUMNS.length);
    expect([...CSV_COLUMNS].sort()).toEqual(Object.keys(rows.at(-1)!).sort());
    for (const k of Object.keys(rows[0]!)) expect(CSV_COLUMNS).toContain(k);
  });

  it('round-trips every field, quoting commas, quotes, newlines and edge spaces', () => {
    const records = parseCsv(rowsToCsv(rows));
    expect(records).toHaveLength(rows.length + 1);
    records.slice(1).forEach((rec, i) => {
      const row = rows[i]!;
      CSV_COLUMNS.forEach((c, j) => {
        expect(rec[j]).toBe(row[c] === undefined ? '' : String(row[c]));
      });
      // Numbers parse back to the identical double.
      expect(Number(rec[CSV_COLUMNS.indexOf('admittedPerWindow')])).toBe(row.admittedPerWindow);
    });
  });

  it('quotes only what needs it', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField(1.25)).toBe('1.25');
    expect(csvField(false)).toBe('false');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('x\r\ny')).toBe('"x\r\ny"');
    expect(csvField(' x')).toBe('" x"');
  });

  it('writes only the header for no rows', () => {
    expect(rowsToCsv([])).toBe(`${CSV_COLUMNS.join(',')}\r\n`);
  });
});
