import { suiteTestConfig } from '../../vitest.shared.js';

// Emulator suites: each file starts fake-gcs-server in beforeAll (installed with `go install` when
// missing; a failure fails the run, never skips it).
export default suiteTestConfig({ name: 'gcs', include: ['test/gcs/**/*.test.ts'], timeoutMs: 180_000 });
