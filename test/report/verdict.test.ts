import { describe, expect, it } from 'vitest';
import type { Section } from '../../src/report/document.js';
import { renderReport, reportDocument } from '../../src/report/report.js';
import { maxRejectedFor } from '../../src/report/sections/advise-pointer.js';
import { SCORECARD_TARGETS } from '../../src/report/sections/scorecard-targets.js';
import type { RunRow, StudyResults } from '../../src/sim/types.js';
import { formatNumber } from '../../src/util/format.js';
import { SMALL_EXTENDED_GRID, SMALL_GRID, syntheticResults } from './synthetic.js';
import { HTML_OPTIONS, wellFormedErrors } from './xml-check.js';

function section(results: StudyResults, id: string): Section {
  const s = reportDocument(results).sections.find((x) => x.id === id);
  if (!s) throw new Error(`no section ${id}`);
  return s;
}

/** The section's first table as label → column title → cell. */
function grid(s: Section): Map<string, Map<string, string>> {
  const t = s.blocks.flatMap((b) => (b.kind === 'table' ? [b.table] : []))[0]!;
  return new Map(t.rows.map((r) => [r[0]!, new Map(t.columns.map((c, i) => [c.title, r[i]!]))]));
}

function texts(s: Section): string[] {
  return s.blocks.flatMap((b) => (b.kind === 'text' ? [b.text] : []));
}

/** What the scorecard says of each design: the targets it fails, each as "<short> <figure before its where>". */
function scorecardMisses(results: StudyResults): Map<string, string[]> {
  const table = grid(section(results, 'scorecard'));
  const out = new Map<string, string[]>();
  for (const [design, cells] of table)
    out.set(
      design,
      SCORECARD_TARGETS.flatMap((t) => {
        const cell = cells.get(t.title)!;
        return cell.startsWith('FAIL ') ? [`${t.short} (${cell.slice(5).split(' (')[0]})`] : [];
      }),
    );
  return out;
}

const ONE_S = 'Δ = 1 s (scorecard runs)';

describe('the verdict', () => {
  const extended = syntheticResults(SMALL_EXTENDED_GRID);

  it('opens the report, before the scorecard', () => {
    const ids = reportDocument(extended).sections.map((s) => s.id);
    expect(ids.slice(0, 2)).toEqual(['verdict', 'scorecard']);
    expect(reportDocument(syntheticResults(SMALL_GRID)).sections[0]!.id).toBe('verdict');
  });

  it('at Δ = 1 s says what the scorecard says, design by design, with the same figures', () => {
    const verdict = grid(section(extended, 'verdict'));
    const card = scorecardMisses(extended);
    expect([...verdict.keys()]).toEqual([...card.keys()]);
    let failing = 0;
    for (const [design, missed] of card) {
      const cell = verdict.get(design)!.get(ONE_S)!;
      if (missed.length === 0) expect(cell).toBe(`meets all ${SCORECARD_TARGETS.length}`);
      else {
        failing++;
        expect(cell).toBe(
          `meets ${SCORECARD_TARGETS.length - missed.length} of ${SCORECARD_TARGETS.length}; misses ${missed.join(', ')}`,
        );
      }
    }
    // the synthetic set has designs on both sides, so the comparison above tests both branches
    expect(failing).toBeGreaterThan(0);
    expect(failing).toBeLessThan(card.size);
  });

  it('follows the scorecard when a scorecard figure changes', () => {
    // adaptive passes everything in the synthetic set; let a 1,000× flood at K = 32 through at 3 × L
    const hit = (r: RunRow) =>
      r.group === 'scorecard' &&
      r.design === 'adaptive' &&
      r.gateways === 32 &&
      r.traffic === 'flood' &&
      r.load === 1000 &&
      (r.attack ?? 'even') === 'even';
    const changed: StudyResults = {
      ...extended,
      rows: extended.rows.map((r) => (hit(r) ? { ...r, admittedPerWindow: 3 } : r)),
    };
    expect(scorecardMisses(extended).get('adaptive')).toEqual([]);
    expect(scorecardMisses(changed).get('adaptive')).toEqual(['even floods (3 × L)']);
    const v = section(changed, 'verdict');
    const n = SCORECARD_TARGETS.length;
    expect(grid(v).get('adaptive')!.get(ONE_S)).toBe(`meets ${n - 1} of ${n}; misses even floods (3 × L)`);
    const before = texts(section(extended, 'verdict')).join('\n');
    const after = texts(v).join('\n');
    expect(before).toContain('Meets every target it was judged on: adaptive at Δ = 1 s and 10 s.');
    expect(after).toContain('Meets every target it was judged on: adaptive at Δ = 10 s.');
  });

  it('follows the scorecard when an onset or a worst window misses', () => {
    // adaptive's onset on a busy key at K = 32 goes to 1.5 × L in one seed; an even flood's worst window to 2 × L
    const onset = (r: RunRow) =>
      r.group === 'onset' && r.design === 'adaptive' && r.gateways === 32 && r.load === 0.8 && r.seed === 1;
    const worst = (r: RunRow) =>
      r.group === 'scorecard' &&
      r.design === 'adaptive' &&
      r.traffic === 'flood' &&
      r.load === 10 &&
      (r.attack ?? 'even') === 'even' &&
      r.seed === 2;
    const changed: StudyResults = {
      ...extended,
      rows: extended.rows.map((r) =>
        onset(r) && r.floodLoad === 100
          ? { ...r, onsetWorst: 1.5 }
          : worst(r) && r.gateways === 8
            ? { ...r, worstWindow: 2 }
            : r,
      ),
    };
    const missed = ['worst window under even floods (2 × L)', 'onset on a busy key (1.5 × L)'];
    expect(scorecardMisses(changed).get('adaptive')).toEqual(missed);
    const n = SCORECARD_TARGETS.length;
    expect(grid(section(changed, 'verdict')).get('adaptive')!.get(ONE_S)).toBe(
      `meets ${n - 2} of ${n}; misses ${missed.join(', ')}`,
    );
  });

  it('judges the main grid’s Δ on its default floods only: the shared counter’s variants do not count', () => {
    const results = syntheticResults(SMALL_GRID);
    // computed here from the rows, independently of the report's code: the worst setting's mean over seeds,
    // and for the worst window the worst seed of the worst setting
    const worstFlood = (syncS: number, m: 'admittedPerWindow' | 'worstWindow' = 'admittedPerWindow') => {
      const cells = new Map<string, number[]>();
      for (const r of results.rows)
        if (
          r.group === 'flood' &&
          r.design === 'shared-counter' &&
          r.syncS === syncS &&
          r.windowKind === 'sliding' &&
          !r.alignedSyncs
        ) {
          const k = `${r.gateways}/${r.load}`;
          cells.set(k, [...(cells.get(k) ?? []), r[m]]);
        }
      const per = [...cells.values()].map((v) =>
        m === 'worstWindow' ? Math.max(...v) : v.reduce((a, b) => a + b, 0) / v.length,
      );
      return Math.max(...per);
    };
    const v = grid(section(results, 'verdict'));
    for (const [col, syncS] of [
      ['Δ = 1 s', 1],
      ['Δ = 10 s', 10],
    ] as const)
      expect(v.get('shared-counter')!.get(col)).toBe(
        `meets 3 of 5; misses even floods (${formatNumber(worstFlood(syncS))} × L), ` +
          `worst window under even floods (${formatNumber(worstFlood(syncS, 'worstWindow'))} × L)`,
      );
    // the fixed-window, aligned-sync variant lets K × L through: counted, it would decide the cell
    expect(worstFlood(1)).toBeLessThan(8);
    const judged = texts(section(results, 'verdict')).find((t) => t.startsWith('Targets judged'));
    expect(judged).toBe(
      'Targets judged at every Δ: 5 — even floods, worst window under even floods, honest rejections, round trips ' +
        'and store operations.',
    );
    expect(texts(section(results, 'verdict'))).toContain(
      'No design meets every target at any Δ of this study. Closest, missing one target: central-log at Δ = 1 s ' +
        'and 10 s (round trips); split at Δ = 1 s and 10 s (honest rejections); leases at Δ = 1 s and 10 s (honest ' +
        'rejections); leases-ask at Δ = 1 s and 10 s (round trips).',
    );
  });

  it('points to advise with one command per K of the study, the targets in its terms', () => {
    const v = section(extended, 'verdict');
    const code = v.blocks.find((b) => b.kind === 'code');
    expect(code?.kind === 'code' && code.lines).toEqual(
      [2, 8, 32].map(
        (K) =>
          `npx fleetlimit advise --gateways ${K} --limit 100/1m --attack 1000x --honest-load 80% --max-over 1.2 --max-mean 1.1 ` +
          '--max-rejected 0.899% --max-round-trips 1%',
      ),
    );
    // 0.899 % = the central log's Erlang loss B(100, 80) = 0.399 % + the scorecard's 0.5 pp
    expect(maxRejectedFor(100)).toBeCloseTo(0.399 + 0.5, 3);
    // verbatim in both renderings, so it can be copied as it stands
    const r = renderReport(extended, '');
    expect(r.markdown).toContain(
      `\`\`\`sh\n${(code?.kind === 'code' && code.lines.join('\n')) || ''}\n\`\`\`\n`,
    );
    expect(r.html).toContain('<pre><code>npx fleetlimit advise --gateways 2 --limit 100/1m --attack 1000x');
    expect(wellFormedErrors(r.html, HTML_OPTIONS)).toEqual([]);
  });

  it('says in one line when the study has nothing to judge', () => {
    const s = section({ ...extended, rows: extended.rows.filter((r) => r.group === 'busy') }, 'verdict');
    expect(s.blocks.filter((b) => b.kind === 'missing')).toHaveLength(1);
    expect(s.blocks.some((b) => b.kind === 'code')).toBe(false);
  });
});
