import { suiteTestConfig } from '../../vitest.shared.js';

// Emulator suites: each file starts fake-gcs-server in beforeAll (installed with `go install` when
// missing; a failure fails the run, never skips it). The emulator is started from the test file, not
// a globalSetup, because globalSetup modules do not resolve the source condition and would load a
// stale dist/. Child executor processes inherit STORAGE_EMULATOR_HOST, so their gs:// prefix targets
// the emulator. Multi-process races on the emulator get a longer limit.
export default suiteTestConfig({ name: 'gcs', include: ['test/gcs/**/*.test.ts'], timeoutMs: 180_000 });
