import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DesignId } from '../../src/config.js';
import { createAsyncGateway } from '../../src/gateway/runtime/index.js';
import { TestAsyncStore } from './async-memory-store.js';

/** Listens on 127.0.0.1 at an ephemeral port; returns the base URL. */
export function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve(`http://127.0.0.1:${port}`);
    });
  });
}

export function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A gateway that admits 2 per minute per key on one gateway; no timer, so nothing runs in the background. */
export function smallGateway(design: DesignId = 'split') {
  const store = new TestAsyncStore();
  const gw = createAsyncGateway({
    id: 'gw-http',
    design,
    limit: 2,
    windowMs: 60_000,
    gateways: 1,
    syncMs: 1_000,
    store,
  });
  return { gw, store };
}

export async function get(url: string, xff?: string): Promise<Response> {
  const res = await fetch(url, { headers: xff === undefined ? {} : { 'x-forwarded-for': xff } });
  await res.text();
  return res;
}
