import { suiteTestConfig } from '../../vitest.shared.js';

// Each runnable example gets a fresh node process; a local cluster or a tokenize run takes a while on 2 cores.
export default suiteTestConfig({ name: 'readme-examples', include: ['*.test.ts'], timeoutMs: 300_000 });
