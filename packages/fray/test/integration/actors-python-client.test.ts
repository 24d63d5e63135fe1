// Python and TypeScript actors calling each other (packages/fray/python/fray_actors, plain grpcio, no generated
// stubs): a Python caller of a TS-hosted actor, and a TS caller of a Python-hosted actor. Python runs from the
// environment of packages/fray/python/ray.lock, which pins grpcio.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pythonEnvCacheDir, pythonEnvDir, pythonEnvKey } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { ACTOR_READY_PREFIX, DEFAULT_PYTHON_VERSION, connectActor, findWorkspaceRoot, hostActor } from '@marin/fray';
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

describe('Python actor host', () => {
  it('serves a Python object that a TS handle calls with JSON and bytes, with Fray codes for its errors', async () => {
    const child = spawn(pythonWithGrpc(), [join(workspace, 'packages/fray/test/fixtures/python_actor_host.py')], {
      env: { ...process.env, PYTHONPATH: join(workspace, 'packages/fray/python') },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    try {
      const lines = createInterface({ input: child.stdout });
      let address = '';
      for await (const line of lines) {
        if (line.startsWith(ACTOR_READY_PREFIX)) {
          address = (JSON.parse(line.slice(ACTOR_READY_PREFIX.length)) as { address: string }).address;
          break;
        }
      }
      await using actor = connectActor(address, { name: 'py-counter' });
      expect(await actor.health()).toMatchObject({ name: 'py-counter', pid: child.pid, methods: ['add', 'bad_result', 'echo', 'fail', 'sleep'] });
      expect(await actor.call('add', 2)).toBe(2);
      expect(await actor.call('add', 3)).toBe(5);
      const tensor = Uint8Array.from({ length: 4096 }, (_, i) => i % 256);
      const echoed = await actor.call<{ doc: string; tensor: Uint8Array }>('echo', { doc: 'd1', tensor });
      expect(echoed.doc).toBe('d1');
      expect(Buffer.from(echoed.tensor).equals(Buffer.from(tensor))).toBe(true);
      const code = async (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);
      expect(await code(actor.call('noSuchMethod'))).toMatchObject({ code: 'FRAY_ACTOR_METHOD_NOT_FOUND' });
      expect(await code(actor.call('_secret'))).toMatchObject({ code: 'FRAY_ACTOR_METHOD_NOT_FOUND' });
      expect(await code(actor.call('fail', 'bad'))).toMatchObject({ code: 'FRAY_ACTOR_METHOD_FAILED', details: { errorName: 'ValueError' } });
      expect(await code(actor.call('bad_result'))).toMatchObject({ code: 'FRAY_ACTOR_UNSERIALIZABLE' });
      expect(await code(actor.callWithOptions('sleep', [5000], { timeoutMs: 300 }))).toMatchObject({ code: 'FRAY_TIMEOUT' });
    } finally {
      child.stdin.end();
      child.kill('SIGKILL');
      if (child.exitCode === null) await once(child, 'exit');
    }
  });
});
