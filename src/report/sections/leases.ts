/** The lease designs' costs: budget stranded at a sync and round trips per request. */
import { DESIGN_IDS, type DesignId } from '../../config.js';
import { DESIGNS } from '../../designs/index.js';
import type { RunRow } from '../../sim/types.js';
import { formatNumber, formatPercent } from '../../util/format.js';
import { cellStat, distinct } from '../aggregate.js';
import type { Block, Section } from '../document.js';
import { designsIn, floodRows, honestSteady, loadLabel, missing, seconds } from './common.js';
import { pivot, tableBlocks } from './pivot.js';

const LEASE_DESIGNS: readonly DesignId[] = DESIGN_IDS.filter((d) => DESIGNS[d].grants);

function leaseCell(rows: RunRow[]) {
  const stranded = cellStat(rows, 'strandedPct');
  const trips = cellStat(rows, 'roundTripsPerRequest');
  return {
    text: `${formatPercent(stranded.mean)} · ${formatNumber(trips.mean)}`,
    pooled: stranded.configs > 1,
  };
}

function leaseTable(rows: readonly RunRow[]) {
  const designs = designsIn(rows);
  const keys = designs.flatMap((d) =>
    distinct(
      rows.filter((r) => r.design === d),
      'gateways',
    ).map((k) => `${d}, K = ${k}`),
  );
  return pivot(
    rows,
    keys,
    distinct(rows, 'syncS'),
    (r) => `${r.design}, K = ${r.gateways}`,
    (r) => r.syncS,
    (k) => k,
    (s) => `Δ = ${seconds(s)}`,
    'design, K · sync interval →',
    leaseCell,
  );
}

/** The flood rate shown for the lease designs: 10 × L when the grid has it, else the heaviest flood run. */
function leaseFloodLoad(rows: readonly RunRow[]): number | undefined {
  const loads = distinct(rows, 'load');
  return loads.includes(10) ? 10 : loads[loads.length - 1];
}

export function leasesSection(all: readonly RunRow[]): Section {
  const id = 'leases';
  const title = 'Leases: stranded budget and round trips per request';
  const intro: Block = {
    kind: 'text',
    text:
      'The lease designs never admit more than L in a window; they pay in two other ways. Stranded budget: slots a ' +
      'gateway was granted but handed back unused at a sync, as a percentage of its fair share L/K, mean over ' +
      'syncs and seeds; budget stranded on one gateway cannot serve a request on another. Round trips per request: ' +
      'store calls on the request path, made by leases-ask when a request finds no slot (leases never makes one, ' +
      'it rejects until its next sync). Rows are design and K, columns Δ; each cell reads "stranded % · round trips ' +
      'per request".',
  };
  const lease = all.filter((r) => LEASE_DESIGNS.includes(r.design));
  const honest = honestSteady(lease);
  const floods = floodRows(lease);
  const load = leaseFloodLoad(floods);
  const blocks: Block[] = [intro, { kind: 'heading', text: 'Honest traffic: steady 80 %, uneven routing' }];
  if (honest.length === 0)
    blocks.push(missing('lease runs with honest steady traffic at 80 % and uneven routing.'));
  else blocks.push(...tableBlocks(leaseTable(honest)));
  blocks.push({
    kind: 'heading',
    text: load === undefined ? 'Floods' : `Flood at ${loadLabel(load)} per window, even routing`,
  });
  if (load === undefined) blocks.push(missing('lease runs under a flood.'));
  else blocks.push(...tableBlocks(leaseTable(floods.filter((r) => r.load === load))));
  return { id, title, blocks };
}
