import { describe, expect, it } from 'vitest';
import { REPLAY_CHUNK } from '../../src/replay/run/engine.js';
import { replayChurn } from './memory-support.js';

describe('replay streams: what it holds follows the keys live within W', () => {
  it('300,000 arrivals on 6,000 keys that come and go: at most two generations of keys held', () => {
    const w = replayChurn(300_000, 1000);
    const r = w.run.finish();
    expect(r.arrivals).toBe(300_000);
    expect(r.keys).toBe(150 * 40);
    // a generation is 40 keys over 20 s and W is 10 s: the live ones, and the last of the one before
    expect(w.maxLive).toBeLessThanOrEqual(80);
    expect(r.peakLiveKeys).toBeLessThanOrEqual(80);
    // per fleet (two designs) and gateway (four), and in each fleet's store
    expect(w.maxGatewayKeys).toBeLessThanOrEqual(2 * 4 * 80);
    expect(w.maxStoreKeys).toBeLessThanOrEqual(2 * 80);
  });

  it('the same, key-grouped in chunks (their sweeps wait for the chunk, spanning less than W)', () => {
    const w = replayChurn(300_000, 1000, () => {}, {
      designs: ['shared-counter', 'adaptive'],
      options: { chunk: REPLAY_CHUNK },
    });
    const r = w.run.finish();
    expect(r.arrivals).toBe(300_000);
    // a generation is 40 keys over 20 s: a fleet's keys go at most W + W/4 later than in time order
    expect(w.maxLive).toBeLessThanOrEqual(80);
    expect(w.maxGatewayKeys).toBeLessThanOrEqual(2 * 4 * 80);
    expect(w.maxStoreKeys).toBeLessThanOrEqual(2 * 80);
  });

  it("split's keys, kept by the fleet and dropped at its sweeps (NeverSyncKeys), key-grouped", () => {
    const w = replayChurn(300_000, 1000, () => {}, { designs: ['split'], options: { chunk: REPLAY_CHUNK } });
    expect(w.run.finish().arrivals).toBe(300_000);
    // per gateway (four), the keys of at most two generations; split leaves nothing in the store
    expect(w.maxGatewayKeys).toBeLessThanOrEqual(4 * 80);
    expect(w.maxStoreKeys).toBe(0);
  });
});
