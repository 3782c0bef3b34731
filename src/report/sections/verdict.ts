/**
 * The report's opening: which design at which Δ meets which of the scorecard's targets, judged by the
 * scorecard's own rules (scorecard-targets.ts) on this study's runs, and the advise command to ask the same
 * for one fleet.
 */
import type { DesignId } from '../../config.js';
import type { RunRow } from '../../sim/types.js';
import { formatNumber } from '../../util/format.js';
import { distinct } from '../aggregate.js';
import type { Block, Section } from '../document.js';
import type { Table } from '../tables.js';
import { advisePointer } from './advise-pointer.js';
import { designsIn, NONE, seconds, sectionOver } from './common.js';
import {
  gridDeltas,
  gridRunsAt,
  judge,
  runsAtDelta,
  SCORECARD_TARGETS,
  type ScorecardTarget,
  scorecardRuns,
  type TargetRuns,
  type Verdict,
} from './scorecard-targets.js';

/** One Δ and the runs it is judged on: the scorecard's when it ran at that Δ, else the main grid's. */
export interface VerdictSetting {
  syncS: number;
  source: 'scorecard' | 'grid';
  on: TargetRuns;
}

export function verdictSettings(all: readonly RunRow[]): VerdictSetting[] {
  const sc = scorecardRuns(all);
  const scored = distinct(sc.runs, 'syncS');
  const settings: VerdictSetting[] = [
    ...gridDeltas(all)
      .filter((d) => !scored.includes(d))
      .map((syncS) => ({ syncS, source: 'grid' as const, on: gridRunsAt(all, syncS) })),
    ...scored.map((syncS) => ({ syncS, source: 'scorecard' as const, on: runsAtDelta(sc, syncS) })),
  ];
  return settings.sort((a, b) => a.syncS - b.syncS);
}

/** One design at one setting: the targets it met and missed, and those its runs could not judge. */
export interface SettingVerdict {
  design: DesignId;
  setting: VerdictSetting;
  met: { target: ScorecardTarget; verdict: Verdict }[];
  missed: { target: ScorecardTarget; verdict: Verdict }[];
  unjudged: ScorecardTarget[];
}

export function settingVerdicts(settings: readonly VerdictSetting[]): SettingVerdict[] {
  const out: SettingVerdict[] = [];
  for (const setting of settings)
    for (const design of designsIn(setting.on.runs)) {
      const v: SettingVerdict = { design, setting, met: [], missed: [], unjudged: [] };
      for (const { target, verdict } of judge(design, setting.on)) {
        if (verdict === null) v.unjudged.push(target);
        else (verdict.pass ? v.met : v.missed).push({ target, verdict });
      }
      if (v.met.length + v.missed.length > 0) out.push(v);
    }
  return out;
}

const deltaLabel = (s: VerdictSetting) =>
  `Δ = ${seconds(s.syncS)}${s.source === 'scorecard' ? ' (scorecard runs)' : ''}`;

function listed(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

function misses(v: SettingVerdict): string {
  return v.missed.map((m) => `${m.target.short} (${m.verdict.value})`).join(', ');
}

/** The sentences: what meets everything it was judged on, else what comes closest. */
function verdictText(verdicts: readonly SettingVerdict[], settings: readonly VerdictSetting[]): string[] {
  const judgedOn = settings.map((s) => {
    const here = verdicts.filter((v) => v.setting === s);
    const names = SCORECARD_TARGETS.filter((t) => here.some((v) => !v.unjudged.includes(t))).map(
      (t) => t.short,
    );
    return { s, names: names.length === 0 ? 'none' : `${names.length} — ${listed(names)}` };
  });
  const same = judgedOn.every((j) => j.names === judgedOn[0]?.names);
  const lines = [
    same && judgedOn.length > 1
      ? `Targets judged at every Δ: ${judgedOn[0]!.names}.`
      : `Targets judged ${judgedOn.map((j) => `at ${deltaLabel(j.s)}: ${j.names}`).join('; ')}.`,
  ];
  const winners = verdicts.filter((v) => v.missed.length === 0);
  if (winners.length > 0) {
    const byDesign = new Map<DesignId, string[]>();
    for (const v of winners)
      byDesign.set(v.design, [...(byDesign.get(v.design) ?? []), seconds(v.setting.syncS)]);
    lines.push(
      `Meets every target it was judged on: ${[...byDesign].map(([d, ds]) => `${d} at Δ = ${listed(ds)}`).join('; ')}.`,
    );
  } else {
    const fewest = Math.min(...verdicts.map((v) => v.missed.length));
    const closest = new Map<DesignId, SettingVerdict[]>();
    for (const v of verdicts)
      if (v.missed.length === fewest) closest.set(v.design, [...(closest.get(v.design) ?? []), v]);
    const each = [...closest].map(([d, vs]) => {
      const names = [...new Set(vs.flatMap((v) => v.missed.map((m) => m.target.short)))];
      return `${d} at Δ = ${listed(vs.map((v) => seconds(v.setting.syncS)))} (${listed(names)})`;
    });
    lines.push(
      `No design meets every target at any Δ of this study. Closest, missing ${fewest === 1 ? 'one target' : `${fewest} targets`}: ` +
        `${each.join('; ')}.`,
    );
  }
  return lines;
}

export function verdictSection(all: readonly RunRow[]): Section {
  const id = 'verdict';
  const title = 'Verdict: which design and Δ meet the targets';
  const settings = verdictSettings(all);
  const verdicts = settingVerdicts(settings);
  const judged = settings.flatMap((s) => s.on.runs);
  const facts =
    judged.length === 0
      ? ''
      : ` (K ∈ {${distinct(judged, 'gateways')
          .map((v) => formatNumber(v))
          .join(', ')}}, L = ${distinct(judged, 'limit')
          .map((v) => formatNumber(v))
          .join(', ')} per ${distinct(judged, 'windowS')
          .map((v) => seconds(v))
          .join(', ')} sliding window)`;
  const scored = settings.filter((s) => s.source === 'scorecard').map((s) => `Δ = ${seconds(s.syncS)}`);
  const head = {
    id,
    title,
    intro:
      `Each design at each Δ of this study${facts}, judged by the scorecard’s rules on the study’s own runs: ` +
      (scored.length > 0
        ? `at ${listed(scored)} on the scorecard’s runs (the scorecard below shows every figure), at the other Δ `
        : 'at every Δ ') +
      'on the main grid’s floods spread evenly (their mean and their worst window) and honest clients at 80 %, ' +
      'which cannot judge the picked-gateway floods, the onsets, the pulsed flood or a store delay (the extended ' +
      'grid runs those for the scorecard, at Δ = 1 s). A cell ' +
      'counts the targets met and names each one missed with the figure that missed it.',
    needs: 'flood or honest runs to judge the targets on.',
  };
  return sectionOver(head, verdicts, (verdicts) => {
    const table: Table = {
      wrap: true,
      columns: [{ title: 'design' }, ...settings.map((s) => ({ title: deltaLabel(s) }))],
      rows: designsIn(judged).map((d) => [
        d,
        ...settings.map((s) => {
          const v = verdicts.find((x) => x.design === d && x.setting === s);
          if (v === undefined) return NONE;
          const n = v.met.length + v.missed.length;
          return v.missed.length === 0
            ? `meets all ${n}`
            : `meets ${v.met.length} of ${n}; misses ${misses(v)}`;
        }),
      ]),
    };
    const blocks: Block[] = [
      ...verdictText(verdicts, settings).map((text): Block => ({ kind: 'text', text })),
      { kind: 'table', table },
    ];
    const pointer = advisePointer(judged);
    if (pointer !== null)
      blocks.push(
        {
          kind: 'text',
          text:
            'For one fleet, fleetlimit advise simulates every design at every Δ for its own K, L/W and attack, and ' +
            'recommends the setting that meets the targets with the fewest store operations. The same questions ' +
            'for this study’s K and L/W:',
        },
        { kind: 'code', lines: pointer.commands },
        { kind: 'text', text: pointer.note },
      );
    return blocks;
  });
}
