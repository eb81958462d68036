import { MemoryObjectStore } from '../object-store/memory-object-store.ts';
import { describeRepoStoreScenarios } from './testing/repo-store-scenarios.ts';

const bucket = new MemoryObjectStore();
describeRepoStoreScenarios('MemoryObjectStore', () => ({ connect: () => bucket }));
