/**
 * Bytes a gateway holds per key, per design: node --expose-gc bench/key-bytes.mjs [keys]
 *
 * For each design one library Gateway takes 200,000 keys (names like "api-key:00012345", 16 characters),
 * each through the state the code gives a key a gateway holds: two admits, a sync (pushed, read back,
 * granted), one more admit. Then the store is let go, the heap collected and measured; the gateway
 * dropped, collected and measured again. The difference over the keys is what one held key costs:
 * the gateway's map entry, the key's string and the design's state (its arrays included). The simulator's
 * bytesPerGateway is held keys × this figure (src/sim/key-bytes.ts holds the latest run).
 */
// FLEETLIMIT_SRC=1 (run under `--import tsx`): the sources instead of the build, for the test that
// keeps src/sim/key-bytes.ts up to date (test/sim/key-bytes.live.test.ts)
const root = process.env.FLEETLIMIT_SRC === '1' ? '../src' : '../dist';
const { DESIGN_IDS } = await import(`${root}/config.js`);
const { Gateway } = await import(`${root}/gateway/gateway.js`);
const { MemoryStore } = await import(`${root}/store/memory-store.js`);

if (typeof globalThis.gc !== 'function') {
  console.error('run with node --expose-gc bench/key-bytes.mjs');
  process.exit(2);
}
const N = Number(process.argv[2] ?? 200_000);
const heap = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
};

const out = {};
for (const design of DESIGN_IDS) {
  // the gateway reaches the store through a box, so the store can be let go while the gateway lives
  const box = { store: new MemoryStore() };
  const store = {
    logAdmit: (...a) => box.store.logAdmit(...a),
    sync: (...a) => box.store.sync(...a),
    ask: (...a) => box.store.ask(...a),
    get keyCount() {
      return box.store.keyCount;
    },
  };
  let gw = new Gateway({ id: 'g0', design, limit: 100, windowMs: 60_000, gateways: 8, syncMs: 1_000 }, store);
  const t0 = 1_000_000;
  for (let i = 0; i < N; i++) {
    const key = `api-key:${String(i).padStart(8, '0')}`;
    gw.admit(key, t0 + i * 0.001);
    gw.admit(key, t0 + i * 0.001 + 0.0005);
  }
  gw.sync(t0 + 500);
  for (let i = 0; i < N; i++) gw.admit(`api-key:${String(i).padStart(8, '0')}`, t0 + 600 + i * 0.001);
  const held = gw.keyCount;
  box.store = null;
  const withGateway = heap();
  // read after the measure: a gateway the code no longer reads may be collected before it (a 0 at times)
  if (gw.keyCount !== held) throw new Error(`${design}: the gateway lost keys while measured`);
  gw = null;
  const without = heap();
  out[design] = held === 0 ? 0 : Math.round((withGateway - without) / held);
  console.error(`${design}: ${held} keys held, ${out[design]} bytes per key`);
}
console.log(JSON.stringify(out));
