/** Number formatting shared by tables, charts and tests, so a test can format a mean and find it verbatim. */

/** Three significant digits, thousands grouped from 1,000, never exponent notation for table-sized values. */
export function formatNumber(v: number, significant = 3): string {
  if (Number.isNaN(v)) return 'n/a';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  if (v === 0) return '0';
  const abs = Math.abs(v);
  if (abs >= 1000) return groupThousands(Math.round(v));
  // toPrecision keeps trailing zeros ("1.00"); Number() drops them, which reads better in a column.
  const rounded = Number(v.toPrecision(significant));
  if (Math.abs(rounded) >= 1e-6) return trimExponent(rounded);
  return rounded.toExponential(significant - 1);
}

function trimExponent(v: number): string {
  const s = String(v);
  if (!s.includes('e')) return s;
  // String() switches to exponents below 1e-6 only; guarded above, kept for safety.
  return v.toFixed(12).replace(/0+$/, '').replace(/\.$/, '');
}

function groupThousands(n: number): string {
  const sign = n < 0 ? '-' : '';
  const digits = String(Math.abs(n));
  return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function formatPercent(v: number): string {
  return `${formatNumber(v)} %`;
}

/** "1.02 ± 0.01", or just the mean when there is no spread to report (one seed). One digit of an error is all it carries. */
export function formatMeanSe(mean: number, se: number, n: number): string {
  if (n < 2 || !Number.isFinite(se)) return formatNumber(mean);
  return `${formatNumber(mean)} ± ${formatNumber(se, 1)}`;
}

/** A multiple of something, "1.5×" for a load column header. */
export function formatMultiple(v: number): string {
  return `${formatNumber(v)}×`;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return 'n/a';
  if (seconds < 90) return `${formatNumber(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = Math.round(seconds - minutes * 60);
  if (minutes < 90) return `${minutes} min ${rest} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** "100/1m", "50/10s", "10/500ms": L/W as `advise --limit` reads it. */
export function limitFlag(limit: number, windowS: number): string {
  const w =
    windowS % 3600 === 0
      ? `${windowS / 3600}h`
      : windowS % 60 === 0
        ? `${windowS / 60}m`
        : windowS >= 1
          ? `${+windowS.toPrecision(6)}s`
          : `${+(windowS * 1000).toPrecision(6)}ms`;
  return `${limit}/${w}`;
}
