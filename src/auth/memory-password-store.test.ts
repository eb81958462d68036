import { describe } from 'vitest';
import { MemoryPasswordStore } from './memory-password-store.ts';
import { passwordStoreContract } from './password-store-contract.ts';

let next = 0;
describe('MemoryPasswordStore', () => {
  passwordStoreContract(async () => ({ store: new MemoryPasswordStore(), userId: async () => `user-${next++}` }));
});
