import { packageTestConfig } from '../../vitest.shared.js';

// Generous unit timeout: a loaded 2-core machine can stall a hermetic filesystem test for seconds.
export default packageTestConfig({ unitTimeoutMs: 30_000 });
