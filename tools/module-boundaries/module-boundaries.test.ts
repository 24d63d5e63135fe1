import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createProjectGraphAsync } from '@nx/devkit';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const fixtures = join(here, 'fixtures');

/** Lints a fixture as if it sat at the same path in the repository, and returns its rule ids. */
async function ruleIdsOf(eslint: ESLint, fixture: string): Promise<(string | null)[]> {
  const [result] = await eslint.lintText(readFileSync(join(fixtures, fixture), 'utf8'), {
    filePath: join(root, fixture),
  });
  return (result?.messages ?? []).map((m) => m.ruleId);
}

describe('module boundaries', () => {
  let eslint: ESLint;

  beforeAll(async () => {
    // The boundaries rule reads Nx's cached project graph and skips silently without one.
    await createProjectGraphAsync({ exitOnError: false });
    eslint = new ESLint({ cwd: root });
  }, 60_000);

  it.each([
    ['packages/rigging/src/imports-executor.ts'],
    ['packages/iris/src/imports-fray.ts'],
    ['packages/executor/src/imports-pipeline.ts'],
  ])('rejects an import against the arrows (%s)', async (fixture) => {
    expect(await ruleIdsOf(eslint, fixture)).toEqual(['@nx/enforce-module-boundaries']);
  });

  it("rejects fray's client API importing a backend", async () => {
    expect(await ruleIdsOf(eslint, 'packages/fray/src/client/imports-backends.ts')).toEqual(['no-restricted-imports']);
  });

  it("rejects the executor's core importing its CLI layer", async () => {
    expect(await ruleIdsOf(eslint, 'packages/executor/src/run/imports-cli.ts')).toEqual(['no-restricted-imports']);
  });

  it('accepts imports along the arrows', async () => {
    expect(await ruleIdsOf(eslint, 'packages/pipeline/src/imports-executor.ts')).toEqual([]);
  });

  it("rejects an import up iris's layers (client/ importing controller/)", async () => {
    expect(await ruleIdsOf(eslint, 'packages/iris/src/client/imports-controller.ts')).toEqual(['no-restricted-imports']);
  });

  it("rejects the controller's store importing its services or its state machine", async () => {
    expect(await ruleIdsOf(eslint, 'packages/iris/src/controller/store/imports-services.ts')).toEqual(['no-restricted-imports', 'no-restricted-imports']);
  });

  it("accepts an import down iris's layers (cluster/ importing controller/ and client/)", async () => {
    expect(await ruleIdsOf(eslint, 'packages/iris/src/cluster/imports-controller.ts')).toEqual([]);
  });
});
