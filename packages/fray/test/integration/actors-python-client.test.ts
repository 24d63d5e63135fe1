// A Python caller (packages/fray/python/fray_actors, plain grpcio, no generated stubs) calling an actor hosted from
// TypeScript. Python runs from the environment of packages/fray/python/ray.lock, which pins grpcio.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pythonEnvCacheDir, pythonEnvDir, pythonEnvKey } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PYTHON_VERSION, findWorkspaceRoot, hostActor } from '@marin/fray';
import { RAY_LOCK_PATH } from '@marin/fray/testing';

const workspace = findWorkspaceRoot();

function pythonWithGrpc(): string {
  const dir = pythonEnvDir(pythonEnvCacheDir(), DEFAULT_PYTHON_VERSION, pythonEnvKey(readFileSync(join(workspace, RAY_LOCK_PATH)), DEFAULT_PYTHON_VERSION));
  const python = join(dir, 'bin', 'python');
  if (!existsSync(python)) throw new Error(`the Python environment with grpcio is not built; run: node tools/python-env/python-env.mjs ${RAY_LOCK_PATH}`);
  return python;
}

describe('Python actor client', () => {
  it('calls a TS-hosted actor with JSON and bytes, and gets Fray codes for its errors', async () => {
    let total = 0;
    await using hosted = await hostActor(
      {
        add: (n: number) => (total += n),
        echo: <T>(v: T) => v,
        fail: (m: string) => {
          throw new TypeError(m);
        },
        sleep: (ms: number) => new Promise((r) => setTimeout(() => r('slept'), ms)),
      },
      { name: 'py-target' },
    );
    const { stdout } = await promisify(execFile)(pythonWithGrpc(), [join(workspace, 'packages/fray/test/fixtures/python_actor_client.py'), hosted.address], {
      env: { ...process.env, PYTHONPATH: join(workspace, 'packages/fray/python') },
      timeout: 120_000,
    });
    const out = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(out['health']).toMatchObject({ name: 'py-target', pid: process.pid });
    expect(out['add']).toEqual([2, 5]);
    expect(out['echo']).toEqual({ doc: 'd1', tensor_len: 1024, tensor_ok: true });
    expect(out['missing']).toMatchObject({ code: 'FRAY_ACTOR_METHOD_NOT_FOUND' });
    expect(out['throws']).toEqual({ code: 'FRAY_ACTOR_METHOD_FAILED', error_name: 'TypeError' });
    expect(out['timeout']).toMatchObject({ code: 'FRAY_TIMEOUT' });
    expect(out['unserializable']).toMatchObject({ code: 'FRAY_ACTOR_UNSERIALIZABLE' });
  });
});
