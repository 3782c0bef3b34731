/** A progress bar with ETA on stderr; plain lines every 10 % when stderr is not a terminal. */
export function progressBar(label: string): (done: number, total: number, elapsedMs: number) => void {
  const tty = process.stderr.isTTY === true;
  let lastDecile = -1;
  return (done, total, elapsedMs) => {
    const frac = total === 0 ? 1 : done / total;
    const eta = done > 0 ? (elapsedMs / done) * (total - done) : 0;
    const text = `${label} ${done}/${total} (${(100 * frac).toFixed(0)} %) ${(elapsedMs / 1000).toFixed(1)} s elapsed, ETA ${(eta / 1000).toFixed(1)} s`;
    if (tty) {
      const width = 30;
      const filled = Math.round(frac * width);
      process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}   `);
      if (done === total) process.stderr.write('\n');
    } else {
      const decile = Math.floor(frac * 10);
      if (decile !== lastDecile) {
        lastDecile = decile;
        process.stderr.write(`${text}\n`);
      }
    }
  };
}
