/** The readers' running counts (ReadStats), kept by every file's reader. */
import type { MalformedLine, ReadStats } from '../arrival.js';

/** How much of a malformed line the report shows. */
export const MALFORMED_TEXT_KEPT = 200;

export class StatsKeeper {
  readonly counts = { lines: 0, arrivals: 0, malformed: 0, reordered: 0, late: 0 };
  /** The first `keep` malformed lines of each file: files are read side by side, the report wants file order. */
  private readonly kept: MalformedLine[][];

  constructor(
    private readonly files: readonly string[],
    private readonly keep: number,
  ) {
    this.kept = files.map(() => []);
  }

  /** Counts a malformed line and keeps it while its file has fewer than `keep` kept. */
  malformed(fileIndex: number, line: number, text: string, reason: string): void {
    this.counts.malformed++;
    const kept = this.kept[fileIndex];
    if (kept.length >= this.keep) return;
    const shown = text.length > MALFORMED_TEXT_KEPT ? `${text.slice(0, MALFORMED_TEXT_KEPT)}…` : text;
    kept.push({ file: this.files[fileIndex], line, text: shown, reason });
  }

  snapshot(): ReadStats {
    return {
      files: [...this.files],
      ...this.counts,
      firstMalformed: this.kept.flat().slice(0, this.keep),
    };
  }
}
