/**
 * The idle sibling: a process that does nothing but watch its own event loop, as the gateways do.
 * Whatever stalls it is the machine (the scheduler, other work), not our code: a gateway stall that
 * coincides with one of its stalls was, at least in part, the machine's.
 */
import { childSetup, send } from '../../src/fleet/children.js';
import { LoopMonitor } from './monitor.js';
import type { CoordinatorMessage, IdleConfig, IdleReport, SampleMessage } from './protocol.js';

const cfg = childSetup<IdleConfig>();
const monitor = new LoopMonitor();
let samples = 0;
let sampler: ReturnType<typeof setInterval> | undefined;
const takeSample = () => {
  samples++;
  const msg: SampleMessage = {
    type: 'sample',
    from: 'idle',
    sample: monitor.sample(samples % cfg.heapEvery === 0),
    counters: {},
  };
  send(msg);
};
// every process forcing its full GC at the same instant would be a CPU burst of the soak's own making
const phase = setTimeout(
  () => {
    takeSample();
    sampler = setInterval(takeSample, cfg.sampleS * 1000);
  },
  cfg.sampleS * 1000 + cfg.phaseMs,
);

process.on('message', (m: CoordinatorMessage) => {
  if (m.type === 'report') {
    clearTimeout(phase);
    clearInterval(sampler);
    const report: IdleReport = { type: 'report', loop: monitor.summary() };
    send(report);
  } else if (m.type === 'stop') {
    monitor.stop();
    process.exit(0);
  }
});
send({ type: 'ready' });
