import { boundedSweep } from '../support/bounded-sweep.js';
import { storeContract } from '../support/store-contract.js';

// the sweep bounded: a record that would be swept forever fails the test instead of hanging it
storeContract('MemoryStore', () => boundedSweep());
