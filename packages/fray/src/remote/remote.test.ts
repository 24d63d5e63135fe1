import { describe, expect, it } from 'vitest';
import { currentClient } from '../backends/current-client.js';
import { withClient } from '../client/client-scope.js';
import { silentLogger } from '../client/logger.js';
import type { CallableEntrypoint } from '../request/entrypoint.js';
import { ResourceConfig } from '../resources/resource-config.js';
import { createRecordingClient } from '../testing/recording-client.js';
import { RemoteCallable, remote } from './remote.js';

function tokenize(_config: { n: number }): void {}

describe('remote()', () => {
  it('returns a frozen RemoteCallable with withCpu() resources and Marin’s defaults', () => {
    const rc = remote(tokenize);
    expect(rc).toBeInstanceOf(RemoteCallable);
    expect(RemoteCallable.is(rc)).toBe(true);
    expect(RemoteCallable.is({ fn: tokenize })).toBe(false);
    expect(Object.isFrozen(rc)).toBe(true);
    expect(rc.resources).toEqual(ResourceConfig.withCpu());
    expect(rc).toMatchObject({ fn: tokenize, envVars: {}, dependencyGroups: null, name: null, entry: null });
  });

  it('keeps custom resources, env, groups, name and entry', () => {
    const resources = ResourceConfig.withGpu('H100', { count: 8 });
    const rc = remote(tokenize, { resources, envVars: { A: 'b' }, dependencyGroups: [], name: 'Tok', entry: { module: 'm.ts', exportName: 'tokenize' } });
    expect(rc).toMatchObject({ resources, envVars: { A: 'b' }, dependencyGroups: [], name: 'Tok', entry: { module: 'm.ts', exportName: 'tokenize' } });
  });

  it('rejects bad options', () => {
    expect(() => remote('x' as unknown as () => void)).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
    expect(() => remote(tokenize, { resources: {} as ResourceConfig })).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
    expect(() => remote(tokenize, { entry: { module: '', exportName: 'x' } })).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
  });
});

describe('RemoteCallable.call()', () => {
  it('submits one job on the current client, runs fn with the arguments and resolves to undefined', async () => {
    await using client = createRecordingClient({ logger: silentLogger });
    const seen: unknown[] = [];
    let insideClient: unknown;
    const rc = remote(
      function Tokenize_Fineweb(a: number, b: string) {
        seen.push(a, b);
        insideClient = currentClient();
        return 'ignored';
      },
      { envVars: { K: 'v' } },
    );
    const result = await withClient(client, () => rc.call(1, 'x'));
    expect(result).toBeUndefined();
    expect(seen).toEqual([1, 'x']);
    expect(insideClient).toBe(client);
    expect(client.submissions).toHaveLength(1);
    const req = client.submissions[0];
    expect(req?.name).toMatch(/^tokenize_fineweb-[0-9a-f]{8}$/);
    expect(req?.resources).toBe(rc.resources);
    expect(req?.environment?.envVars).toMatchObject({ K: 'v', TOKENIZERS_PARALLELISM: 'false' });
    expect(req?.environment).not.toHaveProperty('dependencyGroups');
    expect((req?.entrypoint as CallableEntrypoint).reentry).toBeUndefined();
  });

  it('uses the name option for the job name and builds a spread module reentry from entry', async () => {
    await using client = createRecordingClient({ logger: silentLogger });
    const rc = remote(tokenize, { name: 'Tokenize Fineweb', entry: { module: 'experiments/steps.ts', exportName: 'tokenize' } });
    await withClient(client, () => rc.call({ n: 3 }));
    const req = client.submissions[0];
    expect(req?.name).toMatch(/^tokenize-fineweb-[0-9a-f]{8}$/);
    expect((req?.entrypoint as CallableEntrypoint).reentry).toEqual({
      kind: 'module',
      module: 'experiments/steps.ts',
      exportName: 'tokenize',
      args: [{ n: 3 }],
      spreadArgs: true,
    });
  });

  it('passes explicit dependency groups, including [], into the environment', async () => {
    await using client = createRecordingClient({ logger: silentLogger });
    const rc = remote(tokenize, { resources: ResourceConfig.withGpu('H100'), dependencyGroups: [] });
    await withClient(client, () => rc.call({ n: 1 }));
    expect(client.submissions[0]?.environment?.dependencyGroups).toEqual([]);
  });

  it('rejects with JobFailed when fn throws', async () => {
    await using client = createRecordingClient({ logger: silentLogger });
    const rc = remote(() => {
      throw new Error('nope');
    });
    await expect(withClient(client, () => rc.call())).rejects.toMatchObject({ code: 'FRAY_JOB_FAILED' });
  });
});
