/** The properties the study verified on its own runs, PASS or FAIL. */
import type { CheckResult } from '../../sim/types.js';
import type { Section } from '../document.js';
import type { Table } from '../tables.js';
import { sectionOver, tableBlock } from './common.js';

export function checksSection(checks: readonly CheckResult[]): Section {
  const id = 'checks';
  const title = 'Checks';
  const passed = checks.filter((c) => c.passed).length;
  const head = {
    id,
    title,
    intro:
      'Properties the study verifies on its own runs: the central log against the Erlang B loss rate, the synced ' +
      'designs against the central log with one gateway, the K × L bound with aligned syncs and a fixed window, and ' +
      'no lease design ever above L in any window. A FAIL means the code or the simulator is wrong, not that a ' +
      `design is a poor choice. ${passed} of ${checks.length} passed.`,
    needs: 'checks (none were run).',
  };
  return sectionOver(head, checks, (checks) => {
    const table: Table = {
      wrap: true,
      columns: [{ title: 'check' }, { title: 'result' }, { title: 'detail' }],
      rows: checks.map((c) => [c.name, c.passed ? 'PASS' : 'FAIL', c.detail]),
    };
    return [tableBlock(table)];
  });
}
