import { suiteTestConfig } from '../vitest.shared.js';

export default suiteTestConfig({ name: 'experiments', include: ['test/**/*.test.ts'] });
