import { suiteTestConfig } from '../../vitest.shared.js';

// Emulator suites: fake-gcs-server is started once by the global setup (installed with `go install`
// when missing; a failure fails the run, never skips it).
export default suiteTestConfig({ name: 'gcs', include: ['test/gcs/**/*.test.ts'], globalSetup: ['test/gcs/global-setup.ts'] });
