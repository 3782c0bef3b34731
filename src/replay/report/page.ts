/** The replay's report page as data (src/report/document.ts): rendered to report.md and report.html. */
import type { ReportChart } from '../../chart/spec.js';
import type { ReportDocument, Section } from '../../report/document.js';
import type { ReplayResult, Timeline } from '../run/result.js';
import { designsTable, keysTable, logLine, settingsLine } from './tables.js';

/** A file-safe chart name: by position, as keys are arbitrary strings from a log. */
function chartName(i: number, what: string): string {
  return `timeline-${i + 1}-${what}`;
}

function timelineCharts(tl: Timeline, i: number): ReportChart[] {
  const x = (b: number) => (b * tl.bucketMs) / 60_000;
  const unit = tl.bucketMs >= 60_000 ? `${tl.bucketMs / 60_000} min` : `${tl.bucketMs / 1000} s`;
  const chart = (what: 'admitted' | 'rejected'): ReportChart => ({
    name: chartName(i, what),
    kind: 'line',
    spec: {
      title: `${tl.key}: ${what} per ${unit}, by design`,
      x: { title: 'minutes since the first arrival', min: 0 },
      y: { title: `${what} per ${unit}`, min: 0 },
      series: [
        ...(what === 'admitted'
          ? [
              {
                name: 'requests',
                points: tl.requests.map((y, b) => ({ x: x(b), y })),
                mark: 'line' as const,
                style: 7,
              },
            ]
          : []),
        ...tl.designs.map((d, s) => ({
          name: d.design,
          points: d[what].map((y, b) => ({ x: x(b), y })),
          mark: 'line' as const,
          style: s,
        })),
      ],
    },
  });
  return [chart('admitted'), chart('rejected')];
}

export function replayDocument(r: ReplayResult, command: string): ReportDocument {
  const sections: Section[] = [
    {
      id: 'designs',
      title: 'The designs against the central log',
      blocks: [
        {
          kind: 'text',
          text:
            'Every design decided the same arrivals at the same gateways, syncing every Δ, as the simulator does. ' +
            'Honest rejections: requests not part of an --attack flood that the central log admits and the design rejects. ' +
            'Over-admissions: admits that left more than L in some window W of their key. Worst window: the most admits ' +
            'of one key in any window W, over L. Store calls: syncs and request-path calls per second of the log.',
        },
        { kind: 'table', table: designsTable(r) },
      ],
    },
    {
      id: 'log',
      title: 'What the log already knows',
      blocks: [{ kind: 'text', text: `${logLine(r).replace(/^y/, 'Y')}.` }],
    },
    {
      id: 'keys',
      title: 'The keys most affected',
      blocks: r.top.flatMap((t) => [
        { kind: 'heading' as const, text: t.design },
        { kind: 'text' as const, text: `The keys ${t.design} rejected most where the central log admits:` },
        t.byHonestRejected.length > 0
          ? { kind: 'table' as const, table: keysTable(t.byHonestRejected) }
          : { kind: 'text' as const, text: 'None: no honest rejections.' },
        { kind: 'text' as const, text: `The keys ${t.design} admitted most beyond L:` },
        t.byOverAdmitted.length > 0
          ? { kind: 'table' as const, table: keysTable(t.byOverAdmitted) }
          : { kind: 'text' as const, text: 'None: no admits beyond L.' },
      ]),
    },
  ];
  const timelines = r.timelines ?? [];
  sections.push({
    id: 'timelines',
    title: 'Timelines of the worst keys',
    blocks:
      timelines.length === 0
        ? [
            {
              kind: 'missing',
              text: 'No key was treated differently from the central log: no timeline to draw.',
            },
          ]
        : timelines.flatMap((tl, i) => [
            { kind: 'heading' as const, text: `timeline: ${tl.key}` },
            {
              kind: 'text' as const,
              text:
                'Admitted (with the key’s requests) and rejected over time, per design: where a line leaves the ' +
                'central log’s, that design decided differently.',
            },
            ...timelineCharts(tl, i).map((chart) => ({
              kind: 'chart' as const,
              title: chart.spec.title,
              chart,
            })),
          ]),
  });
  sections.push({ id: 'command', title: 'How this was made', blocks: [{ kind: 'code', lines: [command] }] });
  return { title: 'fleetlimit replay', facts: [['run', settingsLine(r)]], sections };
}
