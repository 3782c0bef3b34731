// Every relative link in README.md and docs/**/*.md points at a file that exists, and an anchor into a
// Markdown page at one of its headings (GitHub's slugs), so moving or renaming a page cannot leave a
// dead link behind. Links in code blocks and code spans are not links.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docFiles, ROOT } from './doc-blocks.js';

/** The text without fenced blocks and code spans (what GitHub renders as code, not links). */
function prose(md: string): string {
  return md.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
}

/**
 * GitHub's anchors for a page's headings (fenced blocks left out): lower case, punctuation dropped
 * (a code span's text stays), spaces to hyphens; a repeated heading gets -1, -2…
 */
function anchorsOf(file: string): Set<string> {
  const md = readFileSync(file, 'utf8').replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of md.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = m[1]
      .toLowerCase()
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

function links(md: string): string[] {
  return [...prose(md).matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)].map((m) => m[1]);
}

describe('the links of README.md and docs/', () => {
  const files = docFiles().filter((f) => f !== 'bench/README.md');

  it('are found (README links into docs/)', () => {
    expect(files).toContain('docs/README.md');
    expect(links(readFileSync(join(ROOT, 'README.md'), 'utf8')).length).toBeGreaterThan(5);
  });

  for (const file of files) {
    it(`${file}: every relative link and anchor resolves`, () => {
      const dead: string[] = [];
      for (const target of links(readFileSync(join(ROOT, file), 'utf8'))) {
        if (/^[a-z][\w+.-]*:/i.test(target)) continue; // https:, mailto:
        const [path, anchor] = target.split('#', 2) as [string, string | undefined];
        const abs = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), decodeURI(path));
        if (!existsSync(abs)) {
          dead.push(`${target}: no such file (${relative(ROOT, abs)})`);
          continue;
        }
        if (anchor !== undefined && anchor !== '' && abs.endsWith('.md')) {
          if (!anchorsOf(abs).has(decodeURIComponent(anchor)))
            dead.push(`${target}: no heading #${anchor} in ${relative(ROOT, abs)}`);
        }
      }
      expect(dead).toEqual([]);
    });
  }
});
