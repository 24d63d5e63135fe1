import { defineConfig } from 'vitest/config';

// Vitest 4 resolves node tests through ssr.resolve, so the source condition goes there.
const conditions = ['@marin/source', 'module', 'node', 'development|production'];

export default defineConfig({
  ssr: { resolve: { conditions } },
  test: {
    projects: [
      // Generous: the machine is shared, and a loaded 2-core box can stall a hermetic test for seconds.
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'], testTimeout: 30_000 } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          pool: 'forks',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
