import { suiteTestConfig } from '../../vitest.shared.js';

export default suiteTestConfig({ name: 'release-check', include: ['*.test.ts'], timeoutMs: 300_000 });
