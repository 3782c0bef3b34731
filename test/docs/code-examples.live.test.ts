// Every code example of README.md and docs/ is run here, so none can rot (issue 20):
// - ```ts / ```js: type-checked against src/ (tsc, strict, as the project: code-examples-types.commands
//   .test.ts, in-process and timed by nothing, so it runs beside the unit tests), then transpiled and run in a
//   child process (plain `node`, as users run the built package: its imports 'fleetlimit',
//   'fleetlimit/http', … resolve to dist/ through the package's own exports, rebuilt first if src/ is
//   newer) with REDIS_URL set to a private redis-server and PORT=0. A driver appended to
//   the example makes one request to the server it starts (or one decision on its gateway), then ends
//   it the example's own way: SIGTERM when the example handles it (its shutdown must end the process
//   within a second of the signal), else process.exit. An example with a shutdown that uses Redis runs
//   twice more, with its redis-server killed and then paused after the request: the shutdown must end
//   the process within a second then too (ioredis's quit() waits for a Redis that is not there). A
//   child without tsx starts in about a second less, which over some thirty runs is most of this file.
// - ```json: a gateway configuration, loaded by loadConfig.
// - ```sh: every `fleetlimit` subcommand and flag, and every `npm run` script, exists.
// A block preceded by `<!-- example: fragment, REASON -->` is only listed, not run; keep those few.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { validateConfig } from '../../src/cli/validate-command.js';
import { loadConfig } from '../../src/config-file.js';
import { LIVE_MAX_CONCURRENCY } from '../../vitest.config.js';
import { ensureFreshBuild } from '../support/fresh-build.js';
import { type RedisServer, startRedisServer, usingExternalRedis } from '../support/redis-server.js';
import { type Example, exampleFile, examples, OUT, runnable } from './code-example-blocks.js';
import { ROOT } from './doc-blocks.js';

/**
 * The example as a child runs it: TypeScript's types stripped (ts.transpileModule: no checking, that
 * was done against src/), ES modules as written, saved as .mjs beside the package's package.json, so
 * 'fleetlimit/…' resolves by the package's own exports to the build, as in a user's install.
 */
function runnableFile(e: Example, suffix: string, driver: string): string {
  const file = exampleFile(e).replace(/\.\w+$/, `${suffix}.mjs`);
  const js = ts.transpileModule(
    `${e.block.code}\nconst SOURCE = ${JSON.stringify(e.block.code)};\n${driver}`,
    {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: file,
    },
  ).outputText;
  writeFileSync(file, js);
  return file;
}

// Appended to each example: it sees the example's top-level bindings (`server` or a Fastify `app`, `gw`) by name.
const DRIVER = `
// ---- appended by test/docs/code-examples.live.test.ts ----
{
  const probe = {};
  // whichever of these the example defines
  // a node:http server, or a Fastify app's
  const srv =
    typeof server !== 'undefined' ? server : typeof app !== 'undefined' && app.server ? app.server : undefined;
  const g = typeof gw === 'undefined' ? undefined : gw;
  if (srv !== undefined) {
    if (!srv.listening) await new Promise((r) => srv.once('listening', r));
    // node:http, not fetch: fetch's parser is WebAssembly, whose background tier-up held every child's
    // exit 300-500 ms past its shutdown (a CPU-bound compile the quick-exit bound then measured)
    const { request } = await import('node:http');
    const get = (path) =>
      new Promise((resolve, reject) => {
        const req = request('http://127.0.0.1:' + srv.address().port + path, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d) => { body += d; });
          res.on('end', () => resolve({ status: res.statusCode, body, rateLimit: res.headers.ratelimit ?? null }));
        });
        req.on('error', reject);
        req.end();
      });
    const res = await get('/');
    probe.status = res.status;
    probe.body = res.body;
    probe.rateLimit = res.rateLimit;
    if (/metricsHandler/.test(SOURCE)) probe.metrics = (await get('/metrics')).status;
  } else if (g !== undefined && typeof g.admitNow === 'function') {
    probe.allowed = (await g.admitNow('docs-example')).allowed;
  }
  process.stdout.write('PROBE ' + JSON.stringify(probe) + '\\n');
  if (process.env.DOCS_EXAMPLE_STORE_AWAY === '1') {
    // the test takes the example's redis-server away, then signals; a sync tick then finds it away
    const go = new Promise((r) => process.once('SIGUSR2', r));
    process.stdout.write('STORE_AWAY?\\n');
    await go;
    await new Promise((r) => setTimeout(r, 1_200));
    // the test says when: no other example's timed exit runs beside this one's
    const turn = new Promise((r) => process.once('SIGUSR2', r));
    process.stdout.write('EXIT?\\n');
    await turn;
  }
  if (/process\\.on\\('SIGTERM'/.test(SOURCE)) {
    const t0 = performance.now();
    process.on('exit', () => process.stdout.write('EXIT_MS ' + Math.round(performance.now() - t0) + '\\n'));
    process.kill(process.pid, 'SIGTERM');
  } else process.exit(0);
}
`;

/** Runs one example; `onAsk`, `onExit`: when it asks for its store taken away, for its turn to exit. */
function runExample(
  file: string,
  env: Record<string, string>,
  onAsk?: () => Promise<void>,
  onExit?: () => Promise<void>,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let hung: NodeJS.Timeout | undefined;
    child.stdout.on('data', (d) => {
      out += d;
      if (onAsk !== undefined && out.includes('STORE_AWAY?\n')) {
        const ask = onAsk;
        onAsk = undefined;
        ask().then(
          () => child.kill('SIGUSR2'),
          (err: Error) => {
            out += `\n[the test could not take the store away: ${err.message}]`;
            child.kill('SIGKILL');
          },
        );
      }
      if (onExit !== undefined && out.includes('EXIT?\n')) {
        const go = onExit;
        onExit = undefined;
        void go().then(() => {
          child.kill('SIGUSR2'); // it holds the others' turn: a hung shutdown fails here
          hung = setTimeout(() => {
            out += '\n[the test killed it: still running 3 s after its turn to exit]';
            child.kill('SIGKILL');
          }, 3_000);
        });
      }
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    // a shutdown that leaves something open never exits: a failure, not a hang (100 s: the last
    // store-away run waits for every run to start and for the others' turns)
    const timer = setTimeout(() => {
      out += '\n[the test killed it: still running 100 s after start]';
      child.kill('SIGKILL');
    }, 100_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      clearTimeout(hung);
      resolve({ code, out });
    });
  });
}

/** n parties: `party()` is one party's arrive(), which resolves once all n have arrived (once each). */
function barrier(n: number): () => () => Promise<void> {
  let left = n;
  let open = () => {};
  const all = new Promise<void>((r) => {
    open = r;
  });
  return () => {
    let arrived = false;
    return () => {
      if (!arrived && --left === 0) open();
      arrived = true;
      return all;
    };
  };
}

/** At most n holders at a time: `await take()` resolves with the release. */
function semaphore(n: number): () => Promise<() => void> {
  let free = n;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next === undefined) free++;
    else next();
  };
  return async () => {
    if (free > 0) free--;
    else await new Promise<void>((r) => waiting.push(r));
    return release;
  };
}

/** An example that handles SIGTERM ended within a second of it (the child's own measure, printed). */
function expectQuickExit(e: Example, out: string): void {
  if (!/process\.on\('SIGTERM'/.test(e.block.code)) return;
  const ms = /^EXIT_MS (\d+)$/m.exec(out)?.[1];
  expect(ms, `${e.id}: no exit after SIGTERM:\n${out}`).toBeDefined();
  process.stdout.write(`${e.id}: exited ${ms} ms after SIGTERM\n`);
  expect(Number(ms), `${e.id}: the shutdown took ${ms} ms:\n${out}`).toBeLessThan(1_000);
}

describe('the code examples of README.md and docs/', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    // the same marker file as the bin test's, so a run builds at most once
    ensureFreshBuild(ROOT, 'dist/cli/main.js');
    redis = await startRedisServer();
    mkdirSync(OUT, { recursive: true });
  }, 240_000);
  afterAll(async () => {
    await redis?.stop();
  });

  it('finds them, and few are fragments', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(3);
    const fragments = examples.filter((e) => e.block.fragment !== undefined);
    expect(fragments.map((e) => `${e.id}: ${e.block.fragment}`).length).toBeLessThanOrEqual(2);
  });

  // These run two at a time (concurrent tests holding one of two slots): a child exits 13-40 ms after
  // SIGTERM, so one starting beside it (a core for about a second) leaves the 1 s bound far off. The
  // examples name their gateways apart (by host and pid, or ids of their own), so two can share the
  // file's redis-server.
  const slots = semaphore(2);
  for (const e of runnable) {
    it.concurrent(`${e.id} runs: one request or decision, then its own shutdown`, async () => {
      const file = runnableFile(e, '', DRIVER);
      const release = await slots();
      const { code: exit, out } = await runExample(file, { REDIS_URL: redis.url, PORT: '0' }).finally(
        release,
      );
      expect(exit, `${e.id} exited ${exit}:\n${out}`).toBe(0);
      const line = out.split('\n').find((l) => l.startsWith('PROBE '));
      expect(line, `${e.id} printed no probe:\n${out}`).toBeDefined();
      const probe = JSON.parse(line!.slice('PROBE '.length));
      if ('status' in probe) {
        expect(probe).toMatchObject({ status: 200, body: 'ok' });
        // the policy's name, or "default" for a gateway of one policy; an example of express-rate-limit
        // or @fastify/rate-limit with fleetlimit's store sends that package's headers
        if (!/from '(express-rate-limit|@fastify\/rate-limit)'/.test(e.block.code))
          expect(probe.rateLimit).toMatch(/^"[\w.~-]+";r=\d+;t=\d+$/);
        if ('metrics' in probe) expect(probe.metrics).toBe(200);
      }
      if ('allowed' in probe) expect(probe.allowed).toBe(true);
      expectQuickExit(e, out);
    }, 60_000);
  }

  // With the store away, the shutdown must not wait for it. Each example runs twice (Redis killed, then
  // paused), all in one batch started side by side; once all have started, STAGGER_MS apart, each has
  // its store taken away, waits the driver's 1.2 s (idle) and asks for its turn to exit. These exits
  // take 300-450 ms (the last sync waits out storeTimeoutMs); two side by side beside a busy loop took
  // 1,041 ms: so no start-up and no other exit runs beside the one timed, 1.2 s after its store left.
  const withRedisShutdown = runnable.filter(
    (e) => /process\.on\('SIGTERM'/.test(e.block.code) && /new Redis\(/.test(e.block.code),
  );
  const STAGGER_MS = 600;
  describe('with their store away', () => {
    it('all run at once: the batch waits for every run to start', () => {
      expect(2 * withRedisShutdown.length, 'see vitest.config.ts').toBeLessThanOrEqual(LIVE_MAX_CONCURRENCY);
    });
    const party = barrier(2 * withRedisShutdown.length);
    // the takings-away, STAGGER_MS apart; the timed exits, one at a time
    const paces = semaphore(1);
    const turns = semaphore(1);
    for (const e of withRedisShutdown) {
      for (const away of ['killed', 'paused'] as const) {
        it.skipIf(usingExternalRedis).concurrent(
          `${e.id}: its shutdown ends the process within a second with Redis ${away}`,
          async () => {
            const arrive = party();
            let release = () => {};
            const own = await startRedisServer();
            try {
              const file = runnableFile(e, `-${away}`, DRIVER);
              const env = { REDIS_URL: own.url, PORT: '0', DOCS_EXAMPLE_STORE_AWAY: '1' };
              const { code: exit, out } = await runExample(
                file,
                env,
                async () => {
                  await arrive();
                  const paced = await paces();
                  setTimeout(paced, STAGGER_MS);
                  if (away === 'killed') await own.kill9();
                  else own.pause();
                },
                async () => {
                  release = await turns();
                },
              );
              expect(out, `${e.id} never asked for the store to go away:\n${out}`).toContain('STORE_AWAY?');
              expect(exit, `${e.id} exited ${exit} with Redis ${away}:\n${out}`).toBe(0);
              expectQuickExit(e, out);
            } finally {
              // a run that failed before it asked must not hold the others at the barrier
              void arrive();
              release();
              if (away === 'paused') own.resume();
              await own.stop();
            }
          },
          120_000,
        );
      }
    }
  });

  const json = examples.filter((e) => e.block.lang === 'json');
  for (const e of json) {
    it(`${e.id} is a configuration loadConfig accepts`, () => {
      expect(() => loadConfig(JSON.parse(e.block.code))).not.toThrow();
    });
  }

  it("docs/production.md's `fleetlimit validate` line is what validate says of its config with syncMs 120000", () => {
    const page = readFileSync(join(ROOT, 'docs/production.md'), 'utf8');
    const quoted = /\(`(fleetlimit: syncMs: [^`]+)`\)/.exec(page)?.[1];
    expect(quoted).toBeDefined();
    const config = JSON.parse(json.find((e) => e.id.startsWith('docs/production.md:'))!.block.code);
    let lines: string[] = [];
    try {
      validateConfig({ ...config, syncMs: 120_000 });
    } catch (err) {
      const errors = (err as { errors?: Error[] }).errors ?? [err as Error];
      lines = errors.map((x) => `fleetlimit: ${x.message}`);
    }
    expect(lines).toContain(quoted);
  });

  const sh = examples.filter((e) => e.block.lang === 'sh');
  it('every fleetlimit subcommand and flag, and every npm script, in a ```sh block exists', () => {
    const program = buildProgram();
    const scripts = Object.keys(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts);
    const problems: string[] = [];
    for (const e of sh) {
      // one command per line; `\` continues it; `# …` is a comment; `[--flag X]` is optional
      const commands = e.block.code.replace(/\\\n/g, ' ').split('\n');
      for (const raw of commands) {
        const cmd = raw.replace(/\s#.*$/, '').replace(/[[\]]/g, ' ');
        for (const part of cmd.split('&&').map((p) => p.trim().split(/\s+/))) {
          if (part[0] === 'npm' && part[1] === 'run' && !scripts.includes(part[2]))
            problems.push(`${e.id}: npm run ${part[2]}: no such script`);
          if (part[0] === 'npm' && part[1] === 'test' && !scripts.includes('test'))
            problems.push(`${e.id}: npm test: no test script`);
          const at = part[0] === 'npx' ? 1 : 0;
          if (part[at] !== 'fleetlimit') continue;
          const sub = program.commands.find((c) => c.name() === part[at + 1]);
          if (sub === undefined) {
            problems.push(`${e.id}: fleetlimit ${part[at + 1]}: no such command`);
            continue;
          }
          const flags = new Set(sub.options.map((o) => o.long));
          for (const w of part.slice(at + 2))
            if (w.startsWith('--') && !flags.has(w))
              problems.push(`${e.id}: fleetlimit ${sub.name()} ${w}: no such flag`);
        }
      }
    }
    expect(sh.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });
});
