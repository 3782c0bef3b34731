// Redis instructions (valgrind callgrind Ir) of single Lua operations inside a script: the per-call
// cost of struct.pack/unpack, cmsgpack, string functions, tables and redis.call, each net of an
// empty loop. Where sync.lua's per-key Lua work goes (docs/decisions/0010). Starts redis-server under
// callgrind on PORT, runs each snippet N times in one EVAL, and stops the server it started.
// Usage: node bench/probes/lua-op-ir.mjs [N=20000] [PORT=7395]
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Redis } from 'ioredis';

const [nArg = '20000', port = '7395'] = process.argv.slice(2);
const N = Number(nArg);
const OPS = [
  ['struct.unpack <d', "x = struct.unpack('<d', s9, 1)"],
  ['struct.unpack <dd', "x, y = struct.unpack('<dd', s9, 1)"],
  ['struct.unpack 9 doubles', "x = struct.unpack('<ddddddddd', s9, 1)"],
  ['struct.pack <Bdd', "x = struct.pack('<Bdd', 0, i, 1700000000000)"],
  ['struct.pack <dddd', "x = struct.pack('<dddd', i, 0, 1700000000000, 0)"],
  ['struct.pack <ddddd', "x = struct.pack('<ddddd', i, 2, 3, 4, 5)"],
  ['cmsgpack.pack 4 numbers', 'x = cmsgpack.pack(i, 0, 1700000000000, 0)'],
  ['string.byte', 'x = string.byte(s9, 1)'],
  ['math.min', 'x = math.min(i, 5)'],
  ['tonumber of text', "x = tonumber('1234')"],
  ['{} (empty table)', 'x = {}'],
  ['table of 6 fields', 'x = { a = 1, b = 2, c = 3, d = 4, e = 5, f = 6 }'],
  ['4 values appended to a table', 'local n = #T T[n + 1] = i T[n + 2] = 0 T[n + 3] = 1 T[n + 4] = 0'],
  ['Lua function call', 'x = f(i)'],
  ["redis.call('HGET') of a missing key", "x = redis.call('HGET', 'h', 'f')"],
  ["redis.call('HMGET', 4 fields) of a missing key", "x = redis.call('HMGET', 'h', 'a', 'b', 'c', 'd')"],
];
const PRE =
  "local s9 = struct.pack('<ddddddddd', 1, 2, 3, 4, 5, 6, 7, 8, 9) local T = {} " +
  'local function f(a) return a end local x, y\n';
const dir = `/tmp/lua-op-ir-${port}`;
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir);
const server = spawn(
  'valgrind',
  ['--tool=callgrind', `--callgrind-out-file=${dir}/cg.out`, 'redis-server', '--port', port, '--save', ''],
  { stdio: 'ignore' },
);
const client = new Redis({ host: '127.0.0.1', port: Number(port), retryStrategy: () => 200 });
client.on('error', () => {});
await client.ping();
const irOf = async (body) => {
  execFileSync('callgrind_control', ['-z', String(server.pid)], { stdio: 'ignore' });
  await client.eval(`${PRE} for i = 1, ${N} do ${body} end return 1`, 0);
  execFileSync('callgrind_control', ['-d', String(server.pid)], { stdio: 'ignore' });
  const dumps = readdirSync(dir)
    .filter((f) => f.startsWith('cg.out.'))
    .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()));
  const text = readFileSync(`${dir}/${dumps.at(-1)}`, 'utf8');
  return Number(/^(?:summary|totals): (\d+)/m.exec(text)[1]) / N;
};
try {
  await irOf('x = 1');
  const base = await irOf('x = i');
  for (const [name, body] of OPS)
    console.log(`${name.padEnd(48)} ${((await irOf(body)) - base).toFixed(0)} Ir`);
} finally {
  client.disconnect();
  server.kill('SIGTERM');
}
