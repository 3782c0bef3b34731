import { afterAll, beforeAll } from 'vitest';
import { type SingleFixture, singleServer } from '../../support/redis-fixtures.js';
import { storeContract } from '../../support/store-contract.js';

let fx: SingleFixture;
beforeAll(async () => {
  fx = await singleServer();
});
afterAll(async () => {
  await fx?.close();
});

// small chunks, so the many-keys case spans several pipelined script calls
storeContract('RedisStore, one server, exact', () => fx.store({ clock: 'caller', chunkKeys: 64 }));
