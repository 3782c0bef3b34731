import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedisServer, waitForPing } from '../../support/redis-server.js';

// REDIS_URL points at a server these tests may not signal: they are reported as skipped, not run.
const controllable = !process.env.REDIS_URL;

describe.skipIf(!controllable)('the private redis-server used by the tests', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('pauses (port open, no answer) and resumes', async () => {
    server.pause();
    await expect(waitForPing(server.host, server.port, 300)).rejects.toThrow(/did not answer PING/);
    server.resume();
    await waitForPing(server.host, server.port);
  });

  it('is killed with SIGKILL and restarts on the same port, by PID', async () => {
    const pid = server.pid;
    await server.kill9();
    await expect(waitForPing(server.host, server.port, 200)).rejects.toThrow();
    await server.restart();
    expect(server.pid).not.toBe(pid);
    await waitForPing(server.host, server.port);
  });

  it('without redis-server on PATH, start fails with an install hint', async () => {
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      await expect(startRedisServer()).rejects.toThrow(/apt-get install redis-server/);
    } finally {
      process.env.PATH = path;
    }
  });
});
