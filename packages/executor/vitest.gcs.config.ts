import { defineConfig } from 'vitest/config';

// Vitest 4 resolves node tests through ssr.resolve, so the source condition goes there.
const conditions = ['@marin/source', 'module', 'node', 'development|production'];

// Emulator suites: each file starts fake-gcs-server in beforeAll (installed with `go install` when
// missing; a failure fails the run, never skips it). The emulator is started from the test file, not
// a globalSetup, because globalSetup modules do not resolve the source condition and would load a
// stale dist/. Child executor processes inherit STORAGE_EMULATOR_HOST, so their gs:// prefix targets
// the emulator.
export default defineConfig({
  ssr: { resolve: { conditions } },
  test: {
    name: 'gcs',
    include: ['test/gcs/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
