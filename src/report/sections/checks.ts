/** The properties the study verified on its own runs, PASS or FAIL. */
import type { CheckResult } from '../../sim/types.js';
import type { Block, Section } from '../document.js';
import type { Table } from '../tables.js';
import { missing } from './common.js';

export function checksSection(checks: readonly CheckResult[]): Section {
  const id = 'checks';
  const title = 'Checks';
  const passed = checks.filter((c) => c.passed).length;
  const intro: Block = {
    kind: 'text',
    text:
      'Properties the study verifies on its own runs: the central log against the Erlang B loss rate, the synced ' +
      'designs against the central log with one gateway, the K × L bound with aligned syncs and a fixed window, and ' +
      'no lease design ever above L in any window. A FAIL means the code or the simulator is wrong, not that a ' +
      `design is a poor choice. ${passed} of ${checks.length} passed.`,
  };
  if (checks.length === 0) return { id, title, blocks: [intro, missing('checks (none were run).')] };
  const table: Table = {
    wrap: true,
    columns: [{ title: 'check' }, { title: 'result' }, { title: 'detail' }],
    rows: checks.map((c) => [c.name, c.passed ? 'PASS' : 'FAIL', c.detail]),
  };
  return { id, title, blocks: [intro, { kind: 'table', table }] };
}
