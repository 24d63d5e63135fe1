import { describe, expect, it } from 'vitest';
import { createDefaultClient } from './default-client.js';

const backendOf = async (env: NodeJS.ProcessEnv): Promise<unknown> => {
  const client = createDefaultClient(env);
  const backend = (client as { backend?: unknown }).backend;
  await client.close();
  return backend;
};

describe('createDefaultClient()', () => {
  it('follows the detection order: FRAY_BACKEND, Iris task, RAY_ADDRESS, local', async () => {
    const ray = { RAY_ADDRESS: 'http://127.0.0.1:8265' };
    const irisTask = { IRIS_TASK_ID: '/u/job/0', IRIS_CONTROLLER_ADDRESS: '127.0.0.1:1', IRIS_JOB_ID: '/u/job' };
    expect(await backendOf({})).toBe('local');
    expect(await backendOf(ray)).toBe('ray');
    expect(await backendOf({ FRAY_RAY_ADDRESS: '127.0.0.1:8265' })).toBe('ray');
    expect(await backendOf({ ...ray, ...irisTask })).toBe('iris');
    expect(await backendOf({ ...ray, FRAY_BACKEND: 'local' })).toBe('local');
    expect(await backendOf({ ...ray, ...irisTask, FRAY_BACKEND: 'ray' })).toBe('ray');
  });

  it('rejects an unknown FRAY_BACKEND and a forced Ray backend without an address', () => {
    expect(() => createDefaultClient({ FRAY_BACKEND: 'slurm' })).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
    expect(() => createDefaultClient({ FRAY_BACKEND: 'ray' })).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
    expect(() => createDefaultClient({ RAY_ADDRESS: 'ray://head:10001' })).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
  });
});
