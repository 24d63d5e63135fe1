import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', 'core/index': 'src/core.ts', 'testing/index': 'src/testing/index.ts', 'cli/index': 'src/cli/index.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
});
