/** An advise input written back as the command that asks for it, so a suggestion can be run as printed. */
import { DESIGN_IDS } from '../config.js';
import { limitFlag } from '../util/format.js';
import { formatSeconds } from './format.js';
import { DEFAULT_DELTAS_S } from './plan.js';
import type { AdviceInput } from './types.js';

const pct = (v: number) => `${+v.toPrecision(6)}%`;
const dur = (s: number) =>
  formatSeconds(s).replace(/ (ms|s|min)$/, (_, u: string) => (u === 'min' ? 'm' : u));

export function adviseCommand(input: AdviceInput): string {
  const defaultDeltas = DEFAULT_DELTAS_S.filter((d) => d <= input.windowS);
  const sameDeltas =
    input.deltasS.length === defaultDeltas.length && input.deltasS.every((d, i) => d === defaultDeltas[i]);
  const allDesigns =
    input.designs.length === DESIGN_IDS.length && DESIGN_IDS.every((d) => input.designs.includes(d));
  return [
    'npx fleetlimit advise',
    `--gateways ${input.gateways}`,
    `--limit ${limitFlag(input.limit, input.windowS)}`,
    `--attack ${+input.attack.toPrecision(6)}x`,
    ...(input.routing === 'even' ? [] : [`--routing ${input.routing}`]),
    ...(input.honestLoad === 0.8 ? [] : [`--honest-load ${pct(100 * input.honestLoad)}`]),
    ...(input.maxWorst === undefined ? [] : [`--max-over ${+input.maxWorst.toPrecision(6)}`]),
    ...(input.maxMean === undefined ? [] : [`--max-mean ${+input.maxMean.toPrecision(6)}`]),
    `--max-rejected ${pct(input.maxRejectedPct)}`,
    ...(input.maxRoundTripsPct === undefined ? [] : [`--max-round-trips ${pct(input.maxRoundTripsPct)}`]),
    ...(allDesigns ? [] : [`--designs ${input.designs.join(',')}`]),
    ...(sameDeltas ? [] : [`--deltas ${input.deltasS.map(dur).join(',')}`]),
  ].join(' ');
}
