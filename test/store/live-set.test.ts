import { MemoryStore } from '../../src/store/memory-store.js';
import { liveContract } from '../support/live-contract.js';

liveContract('MemoryStore', () => new MemoryStore());
