import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../client/logger.js';
import { Entrypoint } from '../../request/entrypoint.js';
import { createEnvironment } from '../../request/environment.js';
import { PythonEnvSpec } from '../../request/python-env-spec.js';
import { ResourceConfig } from '../../resources/resource-config.js';
import { withClient } from '../../client/client-scope.js';
import { remote } from '../../remote/remote.js';
import { createRecordingClient } from '../../testing/recording-client.js';
import { createIrisBackend } from './iris-backend.js';
import type { IrisJobClient } from './iris-job-client.js';

/** Conversion only: these tests never reach a cluster, so every call is refused. */
const offline: IrisJobClient = {
  launchJob: () => Promise.reject(new Error('offline')),
  getJob: () => Promise.reject(new Error('offline')),
  getJobStates: () => Promise.reject(new Error('offline')),
  terminateJob: () => Promise.reject(new Error('offline')),
  fetchLogs: () => Promise.reject(new Error('offline')),
  uploadBundle: () => Promise.reject(new Error('offline')),
  close: () => Promise.resolve(),
};

const bin = Entrypoint.fromBinary('node', ['-e', '1']);
let workspace: string;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'fray-iris-spec-'));
  await writeFile(
    join(workspace, 'package.json'),
    JSON.stringify({ name: 'ws', marin: { dependencyGroups: { gpu: ['jax-cuda@1'], html: ['linkedom@0.18.15', 'turndown@7.2.5'] } } }),
  );
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('createIrisBackend().toJobSpec()', () => {
  it('passes the Python environment to Iris as the lock content, in place as with a bundle', () => {
    const pythonEnv = PythonEnvSpec.fromLock('six==1.17.0\n', { name: 'six.lock' });
    for (const inPlace of [false, true]) {
      const backend = createIrisBackend({ irisClient: offline, workspace, logger: silentLogger, inPlace });
      expect(backend.toJobSpec({ name: 'py', entrypoint: bin, pythonEnv }).pythonEnv).toEqual({ lock: 'six==1.17.0\n', pythonVersion: '3.11', name: 'six.lock' });
      expect(backend.toJobSpec({ name: 'plain', entrypoint: bin }).pythonEnv).toBeUndefined();
    }
  });

  it('turns declared groups into one npm install --no-save step between install and the setup hook', () => {
    const backend = createIrisBackend({ irisClient: offline, workspace, logger: silentLogger });
    const spec = backend.toJobSpec({ name: 'j', entrypoint: bin, environment: createEnvironment({ dependencyGroups: ['html'], npmPackages: ['left-pad@1'] }, {}) });
    expect(spec.entrypoint.setup).toEqual([
      ['npm', 'install', '--no-audit', '--no-fund'],
      ['npm', 'install', '--no-save', '--no-audit', '--no-fund', 'linkedom@0.18.15', 'turndown@7.2.5', 'left-pad@1'],
      ['npm', 'run', 'iris:setup', '--if-present'],
    ]);
    expect(spec.dependencyGroups).toEqual(['html']);
  });

  it('derives ["gpu"] from GPU resources; an explicit [] gives none', () => {
    const backend = createIrisBackend({ irisClient: offline, workspace, logger: silentLogger });
    const derived = backend.toJobSpec({ name: 'g', entrypoint: bin, resources: ResourceConfig.withGpu('H100') });
    expect(derived.dependencyGroups).toEqual(['gpu']);
    expect(derived.entrypoint.setup?.[1]).toEqual(['npm', 'install', '--no-save', '--no-audit', '--no-fund', 'jax-cuda@1']);
    const none = backend.toJobSpec({ name: 'g', entrypoint: bin, resources: ResourceConfig.withGpu('H100'), environment: createEnvironment({ dependencyGroups: [] }, {}) });
    expect(none.dependencyGroups).toEqual([]);
    expect(none.entrypoint.setup).toEqual([
      ['npm', 'install', '--no-audit', '--no-fund'],
      ['npm', 'run', 'iris:setup', '--if-present'],
    ]);
    // TPU derives "tpu", which this workspace does not declare: dropped silently.
    expect(backend.toJobSpec({ name: 't', entrypoint: bin, resources: ResourceConfig.withTpu('v5litepod-8') }).dependencyGroups).toEqual([]);
  });

  it('throws FRAY_INVALID_ARGUMENT for an unknown explicit group', () => {
    const backend = createIrisBackend({ irisClient: offline, workspace, logger: silentLogger });
    expect(() => backend.toJobSpec({ name: 'x', entrypoint: bin, environment: createEnvironment({ dependencyGroups: ['nope'] }, {}) })).toThrow(
      expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }),
    );
  });

  it('uses setupCommands as given, and none at all in place', () => {
    const backend = createIrisBackend({ irisClient: offline, workspace, logger: silentLogger });
    expect(backend.toJobSpec({ name: 'x', entrypoint: bin, environment: createEnvironment({ setupCommands: [['make']] }, {}) }).entrypoint.setup).toEqual([['make']]);
    const inPlace = createIrisBackend({ irisClient: offline, workspace, inPlace: true, logger: silentLogger }).toJobSpec({ name: 'x', entrypoint: bin });
    expect(inPlace.entrypoint.setup).toBeUndefined();
    expect(inPlace.inPlaceWorkdir).toBe(workspace);
    const inPlaceBackend = createIrisBackend({ irisClient: offline, workspace, inPlace: true, logger: silentLogger });
    expect(() => inPlaceBackend.toJobSpec({ name: 'x', entrypoint: bin, environment: createEnvironment({ dependencyGroups: ['nope'] }, {}) })).toThrow(
      expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }),
    );
  });

  it('inherits the parent’s setup inside a task unless the request asks for its own', () => {
    const backend = createIrisBackend({ irisClient: offline, workspace, inTask: true, logger: silentLogger });
    expect(backend.toJobSpec({ name: 'child', entrypoint: bin }).entrypoint.setup).toBeUndefined();
    expect(backend.toJobSpec({ name: 'child', entrypoint: bin, environment: createEnvironment({ dependencyGroups: ['html'] }, {}) }).dependencyGroups).toEqual(['html']);
  });

  it('fills resources, constraints, coscheduling, env, retries and the existing-job policy', () => {
    const backend = createIrisBackend({ irisClient: offline, workspace, logger: silentLogger });
    const spec = backend.toJobSpec(
      { name: 'tpu', entrypoint: bin, resources: ResourceConfig.withTpu(['v5litepod-16', 'v6e-16'], { preemptible: false, regions: ['us-east5'] }), maxRetriesFailure: 1 },
      { adoptExisting: false },
    );
    expect(spec).toMatchObject({
      name: 'tpu',
      resources: { cpu: 32, memory: 128 * 1024 ** 3, disk: 50 * 1024 ** 3, device: { kind: 'tpu', variant: 'v5litepod-16', count: 4 } },
      replicas: 4,
      coscheduling: { groupBy: 'tpu-name', tasksPerGroup: 4 },
      maxRetriesFailure: 1,
      maxRetriesPreemption: 100,
      existingJobPolicy: 'UNSPECIFIED',
      env: { JAX_PLATFORMS: '', LIBTPU_INIT_ARGS: '--xla_tpu_scoped_vmem_limit_kib=50000' },
    });
    expect(spec.constraints).toEqual([
      { key: 'preemptible', op: 'EQ', value: 'false' },
      { key: 'region', op: 'EQ', value: 'us-east5' },
      { key: 'device-variant', op: 'IN', values: ['v5litepod-16', 'v6e-16'] },
    ]);
    expect(backend.toJobSpec({ name: 'k', entrypoint: bin }).existingJobPolicy).toBe('KEEP');
  });

  it('gives a GPU remote() call the derived ["gpu"] group, and explicit [] none', async () => {
    const backend = createIrisBackend({ irisClient: offline, workspace, logger: silentLogger });
    await using recorder = createRecordingClient({ logger: silentLogger });
    const fn = (_x: number): void => undefined;
    const entry = { module: 'steps.ts', exportName: 'fn' };
    await withClient(recorder, async () => {
      await remote(fn, { resources: ResourceConfig.withGpu('H100'), entry }).call(1);
      await remote(fn, { resources: ResourceConfig.withGpu('H100'), entry, dependencyGroups: [] }).call(2);
    });
    const [derived, none] = recorder.submissions.map((r) => backend.toJobSpec(r));
    expect(derived?.dependencyGroups).toEqual(['gpu']);
    expect(none?.dependencyGroups).toEqual([]);
    expect(derived?.entrypoint.run).toEqual(['node', '--conditions=@marin/source', '--import', 'tsx', '_fray_runner.mjs', '_fray_args.json']);
  });

  it('refuses a callable without reentry as not portable', async () => {
    const backend = createIrisBackend({ irisClient: offline, workspace, logger: silentLogger });
    await expect(backend.submit({ name: 'c', entrypoint: Entrypoint.fromCallable(() => 1) })).rejects.toMatchObject({ code: 'FRAY_ENTRYPOINT_NOT_PORTABLE' });
  });
});

describe('createIrisBackend({ controller })', () => {
  it('rejects an address that is not host:port at once', () => {
    expect(() => createIrisBackend({ controller: 'no-port', workspace, logger: silentLogger })).toThrow(
      expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }),
    );
  });

  it('connects on first use: a backend that never called its controller closes cleanly', async () => {
    const backend = createIrisBackend({ controller: '127.0.0.1:1', workspace, logger: silentLogger });
    await expect(backend.close()).resolves.toBeUndefined();
  });
});
