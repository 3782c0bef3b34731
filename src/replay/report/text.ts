/** The replay on stdout: the designs' table, what the log knows, the most affected keys. */
import type { Table } from '../../report/tables.js';
import type { ReplayResult } from '../run/result.js';
import { designsTable, keysTable, logLine, settingsLine } from './tables.js';

/** A table as aligned plain text: text columns flush left, numbers flush right. */
export function textTable(t: Table): string {
  const all = [t.columns.map((c) => c.title), ...t.rows];
  const widths = t.columns.map((_, c) => Math.max(...all.map((row) => [...(row[c] ?? '')].length)));
  return all
    .map((row) =>
      row
        .map((cell, c) => {
          const pad = ' '.repeat(widths[c] - [...cell].length);
          return t.columns[c].align === 'right' ? pad + cell : cell + pad;
        })
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function replayText(r: ReplayResult): string {
  const out = [settingsLine(r), '', textTable(designsTable(r)), '', logLine(r)];
  // one log and no --gateways: one gateway, where every design without grants is the central log
  if (r.settings.gateways === 1)
    out.push(
      'one gateway: every design without grants decides as the central log; give K > 1 (--gateways K with --route, or one log per gateway)',
    );
  if (r.read !== null && r.read.malformed > 0) {
    const first = r.read.firstMalformed[0];
    out.push(
      `${r.read.malformed} malformed line(s) skipped; first: ${first.file}:${first.line}: ${first.reason}`,
    );
  }
  for (const t of r.top) {
    if (t.byHonestRejected.length > 0)
      out.push('', `${t.design}: keys most honestly rejected`, textTable(keysTable(t.byHonestRejected)));
    if (t.byOverAdmitted.length > 0)
      out.push('', `${t.design}: keys most over-admitted`, textTable(keysTable(t.byOverAdmitted)));
  }
  if (r.rankingPruned > 0)
    out.push(
      '',
      `(${r.rankingPruned.toLocaleString('en-US')} lightly affected keys fell out of the bounded ranking)`,
    );
  out.push(
    '',
    'honest rejections: non-flood requests the central log admits and the design rejects; over-admissions: admits',
    'that left more than L in some window W of their key; worst window: the most admits of one key in any window, × L.',
  );
  return `${out.join('\n')}\n`;
}
