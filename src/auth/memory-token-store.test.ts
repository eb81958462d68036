import { describeTokenStoreContract } from './token-store-contract.ts';
import { MemoryTokenStore } from './memory-token-store.ts';

describeTokenStoreContract('MemoryTokenStore', (seed) => new MemoryTokenStore(seed));
