import { describe, expect, it } from 'vitest';
import { htmlTable, markdownTable } from '../../src/report/tables.js';

const table = {
  columns: [{ title: 'design' }, { title: 'a | b', align: 'right' as const }],
  rows: [
    ['x', '0.42 % [0.98]'],
    ['<script>', 'two\nlines & *stars*'],
  ],
};

describe('tables', () => {
  it('Markdown: one line per row, pipes and markup escaped, alignment in the rule', () => {
    const md = markdownTable(table).split('\n');
    expect(md).toEqual([
      '| design | a \\| b |',
      '| --- | ---: |',
      '| x | 0.42 % \\[0.98\\] |',
      '| &lt;script&gt; | two lines &amp; \\*stars\\* |',
    ]);
  });

  it('HTML: escaped cells, row headers, a horizontally scrolling wrapper', () => {
    const html = htmlTable(table);
    expect(html.startsWith('<div class="table-wrap"><table>')).toBe(true);
    expect(html).toContain('<th scope="col" style="text-align:right">a | b</th>');
    expect(html).toContain('<th scope="row">&lt;script&gt;</th>');
    expect(html).toContain('<td style="text-align:right">two\nlines &amp; *stars*</td>');
    expect(html).not.toContain('<script>');
  });
});
