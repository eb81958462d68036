// vi.waitFor gives up after 1 s unless a test says otherwise, and 82 integration waits do not: on a loaded two-core
// CI machine a real apiserver, controller or child process now and then takes longer than that. Integration
// tests wait up to 10 s by default; a wait that holds is as quick as before, one that does not says so later.
import { vi } from 'vitest';

const waitFor = vi.waitFor.bind(vi);
vi.waitFor = ((callback, options) => waitFor(callback, typeof options === 'number' ? options : { timeout: 10_000, ...options })) as typeof vi.waitFor;
