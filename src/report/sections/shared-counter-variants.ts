/** shared-counter with a fixed window and aligned syncs next to its default set-up. */

import { asLine, type ChartSeries } from '../../chart/spec.js';
import type { RunRow } from '../../sim/types.js';
import { distinct } from '../aggregate.js';
import type { Section } from '../document.js';
import { chart, designStyle, loadLabel, meanOf, type SectionHead, sectionOver } from './common.js';
import { meanSe, pivot, tableBlocks } from './pivot.js';

/** The default set-up keeps shared-counter's look from the other charts; the variants take otherwise unused ones. */
const VARIANT_STYLE: Record<string, number> = {
  'sliding window, own sync phases': designStyle('shared-counter'),
  'fixed window, own sync phases': designStyle('track-share'),
  'sliding window, aligned syncs': designStyle('assume-others'),
  'fixed window, aligned syncs': designStyle('split'),
};

function variantLabel(r: RunRow): string {
  return `${r.windowKind} window, ${r.alignedSyncs ? 'aligned syncs' : 'own sync phases'}`;
}

const HEAD: SectionHead = {
  id: 'shared-counter-variants',
  title: 'shared-counter: sliding vs fixed window, own vs aligned syncs (K = 8, Δ = 1 s)',
  intro:
    'shared-counter under a flood with its default set-up (sliding window, each gateway syncing at its own phase) ' +
    'next to a fixed window and aligned syncs (every gateway syncs at the same instants). Cells are mean admitted ' +
    'per window (× L) ± standard error. Aligned syncs remove the staggering that lets one gateway see part of ' +
    'what the others admitted, so with a fixed window every gateway spends the whole limit in each window: a heavy ' +
    'flood gets K × L (the upper dashed line).',
  needs: 'shared-counter flood runs with a fixed window or aligned syncs at K = 8, Δ = 1 s.',
};

export function sharedCounterVariantsSection(all: readonly RunRow[]): Section {
  const { id } = HEAD;
  const rows = all.filter(
    (r) => r.group === 'flood' && r.design === 'shared-counter' && r.gateways === 8 && r.syncS === 1,
  );
  const variants = [...new Set(rows.map(variantLabel))].sort();
  const hasVariant = rows.some((r) => r.windowKind === 'fixed' || r.alignedSyncs);
  // without a variant there is nothing to set the default set-up against
  return sectionOver(HEAD, hasVariant ? rows : [], (rows) => {
    const t = pivot(
      rows,
      variants,
      distinct(rows, 'load'),
      variantLabel,
      (r) => r.load,
      (v) => v,
      loadLabel,
      'variant · flood rate →',
      meanSe('admittedPerWindow'),
    );
    const xs = distinct(rows, 'load');
    const series: ChartSeries[] = variants.map((v) => ({
      name: v,
      style: VARIANT_STYLE[v] ?? designStyle('shared-counter'),
      points: xs
        .map((x) => rows.filter((r) => variantLabel(r) === v && r.load === x))
        .filter((c) => c.length > 0)
        .map((c) => ({ x: c[0]!.load, y: meanOf(c, 'admittedPerWindow') })),
    }));
    const drawn = asLine({
      title: 'shared-counter variants: admitted per window vs flood rate (K = 8, Δ = 1 s)',
      x: { title: 'flood rate (× L per window)', scale: 'log' },
      y: { title: 'admitted per window (× L)', scale: 'log' },
      series,
      referenceLines: [
        { y: 1, label: 'the limit L' },
        { y: 8, label: 'K × L' },
      ],
    });
    return [...tableBlocks(t), chart(id, 'shared-counter variants vs flood rate', drawn)];
  });
}
