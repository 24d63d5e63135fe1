import { defineConfig } from 'vitest/config';

// Vitest 4 resolves node tests through ssr.resolve, so the source condition goes there.
const conditions = ['@marin/source', 'module', 'node', 'development|production'];

export default defineConfig({
  ssr: { resolve: { conditions } },
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
