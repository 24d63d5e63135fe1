import { suiteTestConfig } from '../../vitest.shared.js';

export default suiteTestConfig({ name: 'module-boundaries', include: ['*.test.ts'] });
