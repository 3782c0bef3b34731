import type { Redis } from 'ioredis';

/**
 * A MONITOR connection to `conn`'s server, as ioredis's `monitor()` opens it, without its race.
 * ioredis marks the connection as monitoring in a promise callback after MONITOR's OK, so a command
 * logged in the same read as that OK (another client's, a new connection's ready-check INFO) reaches
 * an empty command queue and fails the monitor: "Command queue state error" (redis/ioredis#1981,
 * taskforcesh/bullmq#2505). Here the OK itself marks it: at 'ready' ioredis has just sent MONITOR
 * (its ready handler; the event comes a tick later, before any reply is read), so the command's
 * resolve is wrapped to set the status first. The connection is closed if it fails.
 */
export function monitorOf(conn: Redis): Promise<Redis> {
  const m = conn.duplicate({ monitor: true, lazyConnect: false });
  m.once('ready', () => {
    const item = m.commandQueue.toArray().find((x) => x.command.name === 'monitor');
    if (item === undefined) return;
    const resolve = item.command.resolve;
    item.command.resolve = (reply: unknown) => {
      (m as { status: string }).status = 'monitoring';
      resolve(reply);
    };
  });
  return new Promise((resolve, reject) => {
    const fail = (err: unknown) => {
      m.on('error', () => {});
      m.disconnect();
      reject(err);
    };
    m.once('error', fail);
    m.once('monitoring', () => {
      m.off('error', fail);
      resolve(m);
    });
  });
}
