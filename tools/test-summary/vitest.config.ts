import { suiteTestConfig } from '../../vitest.shared.js';

export default suiteTestConfig({ name: 'test-summary', include: ['*.test.mjs'] });
