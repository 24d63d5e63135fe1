import { suiteTestConfig } from '../../vitest.shared.js';

export default suiteTestConfig({ name: 'consumer-check', include: ['*.test.ts'] });
