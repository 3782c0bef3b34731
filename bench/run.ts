/**
 * npm run bench [-- --quick] [-- --json] [-- --full-study]: measures, repeats, and writes
 * bench/results/latest.md and latest.json with the machine described.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { benchSimulator, simTable } from './sim.js';

const args = new Set(process.argv.slice(2));
const quick = args.has('--quick');
const machine = {
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  date: new Date().toISOString(),
};
const sim = benchSimulator({ quick, full: args.has('--full-study') });
const result = { machine, quick, sim };
const md = [
  `# fleetlimit benchmarks${quick ? ' (quick)' : ''}`,
  '',
  `${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.date}`,
  '',
  '## Simulator',
  '',
  simTable(sim),
  '',
].join('\n');
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/latest.json', `${JSON.stringify(result, null, 2)}\n`);
writeFileSync('bench/results/latest.md', md);
process.stdout.write(args.has('--json') ? `${JSON.stringify(result)}\n` : md);
