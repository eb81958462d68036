import { MemoryObjectStore } from '../../src/object-store/memory-object-store.ts';
import { describeReplicaSuite } from './testing/replica-suite.ts';

describeReplicaSuite('TenantReplica on MemoryObjectStore', () => new MemoryObjectStore());
