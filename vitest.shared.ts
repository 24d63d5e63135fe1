import { defineConfig } from 'vitest/config';
import type { ViteUserConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

// Vitest 4 resolves node tests through ssr.resolve, so the source condition goes there: tests read
// sibling packages from src/ and never wait for a build.
const conditions = ['@marin/source', 'module', 'node', 'development|production'];

// Integration suites start real servers and processes on a shared 2-core machine: generous limits.
const realWorld = { pool: 'forks', testTimeout: 60_000, hookTimeout: 60_000 } as const;

// Every test process starts without the runner's colour settings (vitest.setup-env.ts).
const setupFiles = [fileURLToPath(new URL('./vitest.setup-env.ts', import.meta.url))];

/** A package's `test` target: hermetic unit tests beside the code, real-world tests in test/integration. */
export function packageTestConfig(opts: { unitTimeoutMs?: number } = {}): ViteUserConfig {
  return defineConfig({
    ssr: { resolve: { conditions } },
    test: {
      setupFiles,
      projects: [
        { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'], testTimeout: opts.unitTimeoutMs ?? 5_000 } },
        { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'], ...realWorld } },
      ],
    },
  });
}

/** One real-world suite in its own target (the emulator suites, the experiments' end-to-end tests). */
export function suiteTestConfig(opts: { name: string; include: string[]; globalSetup?: string[]; timeoutMs?: number }): ViteUserConfig {
  return defineConfig({
    ssr: { resolve: { conditions } },
    test: {
      name: opts.name,
      include: opts.include,
      setupFiles,
      ...(opts.globalSetup ? { globalSetup: opts.globalSetup } : {}),
      ...realWorld,
      ...(opts.timeoutMs ? { testTimeout: opts.timeoutMs, hookTimeout: opts.timeoutMs } : {}),
    },
  });
}
