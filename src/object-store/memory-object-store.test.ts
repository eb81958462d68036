import { randomBytes } from 'node:crypto';
import { MemoryObjectStore } from './memory-object-store.ts';
import { describeObjectStoreContract } from './testing/object-store-contract.ts';

const store = new MemoryObjectStore();
describeObjectStoreContract('MemoryObjectStore', () => ({ store, prefix: () => `t-${randomBytes(4).toString('hex')}/` }));
