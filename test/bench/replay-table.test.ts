// The replay bench's table (bench/replay.ts): a row per design and fleet shape, the readers alone per
// shape, and a result saved before shapes were measured still reads as one gateway's.
import { describe, expect, it } from 'vitest';
import { parseShape, type ReplayBench, replayTable } from '../../bench/replay.js';

const s = (median: number) => ({ min: median - 1, median, max: median + 1 });

describe('the replay bench table', () => {
  it('names each row by its design and shape, with the readers alone per shape', () => {
    const b: ReplayBench = {
      lines: 1000,
      runs: 1,
      format: 'combined',
      shapes: [{ gateways: 1 }, { gateways: 4, route: 'random' }],
      parseCpu: s(900_000),
      parseCpuByShape: { ', K = 4, --route random': s(800_000) },
      endToEndCpu: {
        'central-log': s(300_000),
        'shared-counter --reads on-request': s(250_000),
        'central-log, K = 4, --route random': s(150_000),
      },
      endToEndWall: {},
      samples: [],
    };
    const lines = replayTable(b).split('\n');
    expect(lines[0]).toContain('one gateway, then 4 gateways (`--route random`)');
    const rows = lines.filter((l) => l.startsWith('| the') || l.startsWith('| readers'));
    expect(rows).toEqual([
      '| the readers alone (parse) | 899,999 / 900,000 / 900,001 | yes |',
      '| readers + central-log | 299,999 / 300,000 / 300,001 | yes |',
      '| readers + shared-counter --reads on-request | 249,999 / 250,000 / 250,001 | yes |',
      '| the readers alone (parse), K = 4, --route random | 799,999 / 800,000 / 800,001 | yes |',
      '| readers + central-log, K = 4, --route random | 149,999 / 150,000 / 150,001 | **no** |',
    ]);
  });

  it('reads a result saved before shapes as one gateway', () => {
    const table = replayTable({
      lines: 1000,
      runs: 1,
      format: 'combined',
      parseCpu: s(900_000),
      endToEndCpu: { split: s(100_000) },
      endToEndWall: {},
      samples: [],
    });
    expect(table).toContain('stamps), one gateway, 100 per minute');
    expect(table).toContain('| readers + split | 99,999 / 100,000 / 100,001 | **no** |');
  });

  it('parses --shape', () => {
    expect(parseShape('1')).toEqual({ gateways: 1 });
    expect(parseShape('4/random')).toEqual({ gateways: 4, route: 'random' });
    expect(parseShape('32')).toEqual({ gateways: 32, route: 'hash' });
    expect(() => parseShape('0/hash')).toThrow(/K must be an integer/);
    expect(() => parseShape('4/spray')).toThrow(/route must be/);
  });
});
