/** One table model rendered as Markdown (GitHub-flavoured) or HTML. Cells are plain text; both renderers escape them. */
import { escapeXml } from './escape.js';

export type Align = 'left' | 'right' | 'center';

export interface TableColumn {
  title: string;
  align?: Align;
}

/** Columns of figures, one per title: right-aligned, so digits line up. */
export function figureColumns(...titles: string[]): TableColumn[] {
  return titles.map((title) => ({ title, align: 'right' }));
}

export interface Table {
  columns: readonly TableColumn[];
  rows: readonly (readonly string[])[];
  /** Cells of sentences, not figures: they wrap within the page instead of scrolling sideways. */
  wrap?: boolean;
}

/** Escapes a cell so it cannot end the cell, break the row or start markup; inline text only. */
export function escapeMarkdownCell(text: string): string {
  return text
    .replace(/\r\n|\r|\n/g, ' ')
    .replace(/[\\`*_[\]|]/g, (c) => `\\${c}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

export function markdownTable(table: Table): string {
  const cells = (row: readonly string[]) =>
    `| ${table.columns.map((_, i) => escapeMarkdownCell(row[i] ?? '') || ' ').join(' | ')} |`;
  const rule = table.columns.map((c) =>
    c.align === 'right' ? '---:' : c.align === 'center' ? ':---:' : '---',
  );
  return [cells(table.columns.map((c) => c.title)), `| ${rule.join(' | ')} |`, ...table.rows.map(cells)].join(
    '\n',
  );
}

/** A table in a wrapper that scrolls sideways on a narrow screen instead of overflowing the page. */
export function htmlTable(table: Table, caption?: string): string {
  const style = (c: TableColumn) => (c.align && c.align !== 'left' ? ` style="text-align:${c.align}"` : '');
  const head = table.columns.map((c) => `<th scope="col"${style(c)}>${escapeXml(c.title)}</th>`).join('');
  const body = table.rows
    .map((row) => {
      const tds = table.columns.map((c, i) => {
        const text = escapeXml(row[i] ?? '');
        // The first column names the row; marking it as a header helps screen readers walk the table.
        return i === 0 ? `<th scope="row"${style(c)}>${text}</th>` : `<td${style(c)}>${text}</td>`;
      });
      return `<tr>${tds.join('')}</tr>`;
    })
    .join('\n');
  const cap = caption ? `<caption>${escapeXml(caption)}</caption>` : '';
  return `<div class="table-wrap"><table${table.wrap === true ? ' class="wrap"' : ''}>${cap}<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody></table></div>`;
}
