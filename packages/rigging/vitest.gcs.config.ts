import { defineConfig } from 'vitest/config';

// Vitest 4 resolves node tests through ssr.resolve, so the source condition goes there.
const conditions = ['@marin/source', 'module', 'node', 'development|production'];

// Emulator suites: fake-gcs-server is started once by the global setup (installed with `go install`
// when missing; a failure fails the run, never skips it).
export default defineConfig({
  ssr: { resolve: { conditions } },
  test: {
    name: 'gcs',
    include: ['test/gcs/**/*.test.ts'],
    globalSetup: ['test/gcs/global-setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
