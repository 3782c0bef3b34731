import { MemoryStore } from '../../src/store/memory-store.js';
import { storeContract } from '../support/store-contract.js';

storeContract('MemoryStore', () => new MemoryStore());
