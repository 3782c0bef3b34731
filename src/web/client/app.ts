/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import type * as Plot from '@observablehq/plot';
import { DESIGN_IDS, type DesignId } from '../../config.js';
import type { RunMetrics, RunParams } from '../../sim/types.js';
import type { TimelinePoint } from '../timeline.js';
import { type SweepOptions, type SweepPoint, sweepChart, timelineChart } from './charts.js';
import {
  ATTACK_STOPS,
  decodeState,
  encodeState,
  type PageState,
  runParams,
  SYNC_STOPS,
  simCommand,
  stateErrors,
  sweepDeltas,
  sweepParams,
} from './params.js';
import { type Job, WorkerPool } from './pool.js';

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const input = (id: string) => $<HTMLInputElement>(id);

function nearest(stops: number[], v: number): number {
  let best = 0;
  for (let i = 1; i < stops.length; i++)
    if (Math.abs(Math.log(stops[i] / v)) < Math.abs(Math.log(stops[best] / v))) best = i;
  return best;
}

function seconds(s: number): string {
  return s < 1 ? `${Math.round(s * 1000)} ms` : s >= 120 && s % 60 === 0 ? `${s / 60} min` : `${s} s`;
}

// ---- controls ⇄ state ----

function writeControls(s: PageState): void {
  input('gateways').value = String(s.gateways);
  input('limit').value = String(s.limit);
  input('window').value = String(s.windowS);
  input('sync').value = String(nearest(SYNC_STOPS, s.syncS));
  $<HTMLSelectElement>('honest-kind').value = s.honestKind;
  input('honest-load').value = String(Math.round(s.honestLoad * 100));
  $<HTMLSelectElement>('routing').value = s.routing;
  input('attack').value = String(nearest(ATTACK_STOPS, s.attack));
  for (const box of document.querySelectorAll<HTMLInputElement>('input[name=design]'))
    box.checked = s.designs.includes(box.value as DesignId);
  $<HTMLSelectElement>('run-of').value = s.runOf;
  input('minutes').value = String(s.minutes);
  input('seed').value = String(s.seed);
}

function readControls(): PageState {
  const windowS = Number(input('window').value);
  // Δ cannot exceed W: the slider stops at the last stop within it
  const syncMax = Math.max(0, SYNC_STOPS.filter((d) => !(windowS > 0) || d <= windowS).length - 1);
  input('sync').max = String(syncMax);
  const syncIdx = Math.min(Number(input('sync').value), syncMax);
  input('sync').value = String(syncIdx);
  return {
    gateways: Number(input('gateways').value),
    syncS: SYNC_STOPS[syncIdx],
    limit: Number(input('limit').value),
    windowS,
    honestKind: $<HTMLSelectElement>('honest-kind').value as PageState['honestKind'],
    honestLoad: Number(input('honest-load').value) / 100,
    routing: $<HTMLSelectElement>('routing').value as PageState['routing'],
    attack: ATTACK_STOPS[Number(input('attack').value)],
    designs: [...document.querySelectorAll<HTMLInputElement>('input[name=design]:checked')].map(
      (b) => b.value as DesignId,
    ),
    runOf: $<HTMLSelectElement>('run-of').value as PageState['runOf'],
    minutes: Number(input('minutes').value),
    seed: Number(input('seed').value),
  };
}

function showLabels(s: PageState): void {
  $('gateways-out').textContent = String(s.gateways);
  $('sync-out').textContent = seconds(s.syncS);
  $('honest-load-out').textContent = `${Math.round(s.honestLoad * 100)} %`;
  $('attack-out').textContent = `${s.attack}×`;
}

function showErrors(errors: Record<string, string>): void {
  for (const el of document.querySelectorAll<HTMLElement>('[data-error-for]')) {
    const msg = errors[el.dataset.errorFor ?? ''];
    el.textContent = msg ?? '';
    el.hidden = msg === undefined;
  }
}

// ---- simulation ----

interface Results {
  state: PageState;
  runs: Map<DesignId, { params: RunParams; metrics?: RunMetrics; points?: TimelinePoint[]; error?: string }>;
  attack: SweepPoint[];
  honest: SweepPoint[];
  done: number;
  total: number;
  started: number;
  finished?: number;
  errors: string[];
}

const pool = new WorkerPool('worker.js', Math.max(1, Math.min(navigator.hardwareConcurrency || 2, 4)));
let results: Results | null = null;

function start(s: PageState): void {
  const jobs: Job[] = [];
  const handle: ((m: RunMetrics, points?: TimelinePoint[]) => void)[] = [];
  const r: Results = {
    state: s,
    runs: new Map(),
    attack: [],
    honest: [],
    done: 0,
    total: 0,
    started: performance.now(),
    errors: [],
  };
  // the run over time first: it is what the eye goes to
  for (const design of s.designs) {
    const params = runParams(s, design);
    r.runs.set(design, { params });
    jobs.push({ params, timeline: true });
    handle.push((metrics, points) => Object.assign(r.runs.get(design)!, { metrics, points }));
  }
  for (const kind of ['attack', 'honest'] as const) {
    for (const design of s.designs) {
      for (const syncS of sweepDeltas(s.windowS)) {
        jobs.push({ params: sweepParams(s, design, syncS, kind), timeline: false });
        handle.push((m) => {
          const value = kind === 'attack' ? m.admittedPerWindow : m.rejectedPct;
          r[kind].push({ design, syncS, value });
        });
      }
    }
  }
  r.total = jobs.length;
  results = r;
  pool.run(jobs, (i, reply) => {
    if (results !== r) return;
    r.done++;
    if (reply.error !== undefined) r.errors.push(reply.error);
    else if (reply.metrics !== undefined) handle[i](reply.metrics, reply.points);
    if (r.done === r.total) r.finished = performance.now();
    requestRender();
  });
  requestRender();
}

// ---- rendering ----

let renderQueued = false;
function requestRender(): void {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    render();
  });
}

function replace(id: string, el: Element | null): void {
  const box = $(id);
  box.replaceChildren(...(el === null ? [] : [el]));
}

function chartWidth(id: string): number {
  return Math.max(280, Math.floor($(id).clientWidth));
}

/** Flood multiples run from just under 1 × L (lease designs) to K × L: a log axis with room below 1. */
function overScale(values: number[]): Plot.ScaleOptions {
  const lo = Math.min(0.9, ...values.filter((v) => v > 0).map((v) => v * 0.95));
  return {
    type: 'log',
    domain: [lo, Math.max(2, ...values) * 1.1],
    tickFormat: (t: number) => String(t),
    label: 'admitted per window (× L, log)',
  };
}

/** Rejections run from 0 to tens of percent: a symlog axis, ticked at 0 and at 1–3 steps. */
function rejectionScale(values: number[]): Plot.ScaleOptions {
  const top = Math.max(1, ...values) * 1.1;
  const ticks = [0, 0.1, 0.3, 1, 3, 10, 30, 100].filter((t) => t <= top);
  return {
    type: 'symlog',
    constant: 0.1,
    domain: [0, top],
    ticks,
    tickFormat: (t: number) => String(t),
    label: 'honest requests rejected (%, symlog)',
  };
}

const byDelta = (a: SweepPoint, b: SweepPoint) => a.syncS - b.syncS;
/** What one sweep chart has of its own (the rest is the page's). */
type SweepMore = Pick<SweepOptions, 'y' | 'unit' | 'rule'>;

function render(): void {
  const r = results;
  if (r === null) return;
  const s = r.state;
  const status = $('status');
  status.textContent =
    r.errors.length > 0
      ? `A run failed: ${r.errors[0]}`
      : r.finished === undefined
        ? `Simulating… ${r.done} of ${r.total} runs`
        : `${r.total} runs in ${((r.finished - r.started) / 1000).toFixed(1)} s, in this browser`;
  status.dataset.state = r.finished === undefined ? 'running' : 'done';
  $('run-caption').textContent =
    `${s.runOf === 'attack' ? `A flood at ${s.attack}× the limit` : `An honest ${s.honestKind === 'steady' ? 'steady' : 'page-load'} client at ${Math.round(s.honestLoad * 100)} % of the limit`}` +
    `, ${s.routing} routing; K = ${s.gateways}, Δ = ${seconds(s.syncS)}, L = ${s.limit} per ${seconds(s.windowS)}, ${s.minutes} min, seed ${s.seed}.`;

  const series = s.designs
    .map((design) => ({ design, points: r.runs.get(design)?.points }))
    .filter((x): x is { design: DesignId; points: TimelinePoint[] } => x.points !== undefined);
  replace(
    'timeline-chart',
    series.length === 0
      ? null
      : timelineChart(series, {
          width: chartWidth('timeline-chart'),
          windowLabel: seconds(s.windowS),
          designs: s.designs,
        }),
  );
  renderMetrics(r);

  const deltas = sweepDeltas(s.windowS);
  const base = { designs: s.designs, deltas, chosenS: s.syncS };
  const sweep = (id: string, points: readonly SweepPoint[], more: SweepMore) =>
    replace(
      id,
      points.length === 0
        ? null
        : sweepChart([...points].sort(byDelta), { ...base, ...more, width: chartWidth(id) }),
    );
  sweep('over-chart', r.attack, {
    y: overScale(r.attack.map((p) => p.value)),
    unit: (v) => `${v.toFixed(3)} × L per window`,
    rule: 1,
  });
  $('over-caption').textContent =
    `A flood at ${s.attack}× the limit, ${s.routing} routing; the dashed line is L.`;
  sweep('reject-chart', r.honest, {
    y: rejectionScale(r.honest.map((p) => p.value)),
    unit: (v) => `${v.toFixed(3)} % rejected`,
  });
  $('reject-caption').textContent =
    `An honest ${s.honestKind === 'steady' ? 'steady' : 'page-load'} client at ${Math.round(s.honestLoad * 100)} % of the limit, ${s.routing} routing.`;
}

const METRICS: { key: keyof RunMetrics; head: string; show: (v: number) => string }[] = [
  { key: 'admittedPerWindow', head: 'admitted / W', show: (v) => `${v.toFixed(3)} × L` },
  { key: 'worstWindow', head: 'worst window', show: (v) => `${v.toFixed(3)} × L` },
  { key: 'rejectedPct', head: 'rejected', show: (v) => `${v.toFixed(3)} %` },
  { key: 'roundTripsPerRequest', head: 'round trips / request', show: (v) => v.toFixed(4) },
  { key: 'syncs', head: 'syncs', show: (v) => Math.round(v).toLocaleString('en-US') },
  { key: 'requests', head: 'requests', show: (v) => Math.round(v).toLocaleString('en-US') },
  { key: 'admitted', head: 'admitted', show: (v) => Math.round(v).toLocaleString('en-US') },
];

function renderMetrics(r: Results): void {
  const table = document.createElement('table');
  table.id = 'metrics';
  const head = table.createTHead().insertRow();
  for (const h of ['design', ...METRICS.map((m) => m.head)]) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = h;
    head.append(th);
  }
  const body = table.createTBody();
  const commands: string[] = [];
  for (const design of r.state.designs) {
    const run = r.runs.get(design)!;
    const tr = body.insertRow();
    tr.dataset.design = design;
    // the exact parameters and numbers, for anyone checking them against `fleetlimit sim --json`
    tr.dataset.params = JSON.stringify(run.params);
    const name = document.createElement('th');
    name.scope = 'row';
    const swatch = document.createElement('span');
    swatch.className = `swatch d-${design}`;
    name.append(swatch, design);
    tr.append(name);
    for (const m of METRICS) {
      const td = tr.insertCell();
      td.dataset.metric = m.key;
      if (run.metrics !== undefined) {
        td.dataset.value = String(run.metrics[m.key]);
        td.textContent = m.show(run.metrics[m.key]);
      } else td.textContent = '…';
    }
    commands.push(simCommand(run.params));
  }
  replace('metrics-box', table);
  $('commands').textContent = commands.join('\n');
}

// ---- wiring ----

let timer: ReturnType<typeof setTimeout> | undefined;
function changed(): void {
  const s = readControls();
  showLabels(s);
  const errors = stateErrors(s);
  showErrors(errors);
  history.replaceState(null, '', `#${encodeState(s)}`);
  clearTimeout(timer);
  if (Object.keys(errors).length > 0) return;
  // let a dragged slider settle before starting over
  timer = setTimeout(() => start(s), 120);
}

function init(): void {
  const designs = $('designs');
  for (const d of DESIGN_IDS) {
    const label = document.createElement('label');
    label.className = 'check';
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.name = 'design';
    box.value = d;
    const swatch = document.createElement('span');
    swatch.className = `swatch d-${d}`;
    label.append(box, swatch, d);
    designs.append(label);
  }
  input('sync').max = String(SYNC_STOPS.length - 1);
  input('attack').max = String(ATTACK_STOPS.length - 1);
  writeControls(decodeState(location.hash));
  $('controls').addEventListener('input', changed);
  $('controls').addEventListener('submit', (e) => e.preventDefault());
  let lastWidth = window.innerWidth;
  window.addEventListener('resize', () => {
    if (window.innerWidth === lastWidth) return;
    lastWidth = window.innerWidth;
    requestRender();
  });
  const s = readControls();
  showLabels(s);
  const errors = stateErrors(s);
  showErrors(errors);
  if (Object.keys(errors).length === 0) start(s);
}

init();
