import { describe, expect, it } from 'vitest';
import { Entrypoint } from '../../request/entrypoint.js';
import { createEnvironment } from '../../request/environment.js';
import { resolveJobRequest } from '../../request/job-request.js';
import { PythonEnvSpec } from '../../request/python-env-spec.js';
import type { JobRequest } from '../../request/job-request.js';
import { ResourceConfig } from '../../resources/resource-config.js';
import { MODULE_ARGS_FILE, MODULE_RUNNER_FILE } from '../../runner/module-runner.js';
import { deviceDefaultEnv } from './device-env.js';
import { frayStatusOfIrisState } from './job-state-map.js';
import { buildIrisLaunchPlan, irisCoschedulingOf, irisConstraintsOf } from './launch-plan.js';

const bin = Entrypoint.fromBinary('node', ['-e', '1']);

function plan(request: Partial<JobRequest>, adoptExisting = true) {
  return buildIrisLaunchPlan(resolveJobRequest({ name: 'job', entrypoint: bin, environment: createEnvironment({}, {}), ...request }), { adoptExisting });
}

describe('buildIrisLaunchPlan()', () => {
  it('converts cpu to millicores and size strings to bytes', () => {
    const p = plan({ resources: ResourceConfig.withCpu({ cpu: 0.5, ram: '4g', disk: '1t' }) });
    expect(p).toMatchObject({ cpuMillicores: 500, memoryBytes: 4294967296, diskBytes: 1024 ** 4, device: { kind: 'cpu' }, replicas: 1 });
  });

  it('asks for chips per VM on TPU and keeps the slice replicas', () => {
    const p = plan({ resources: ResourceConfig.withTpu('v5litepod-16', { sliceCount: 2 }) });
    expect(p.device).toEqual({ kind: 'tpu', variant: 'v5litepod-16', count: 4 });
    expect(p.replicas).toBe(8);
    expect(plan({ resources: ResourceConfig.withTpu('v6e-8') }).device).toEqual({ kind: 'tpu', variant: 'v6e-8', count: 8 });
  });

  it('converts GPUs to Iris’s lower-case variants', () => {
    expect(plan({ resources: ResourceConfig.withGpu('H100', { count: 8 }) }).device).toEqual({ kind: 'gpu', variant: 'h100', count: 8 });
    expect(plan({ resources: ResourceConfig.withGpu('A100-80G') }).device).toEqual({ kind: 'gpu', variant: 'a100', count: 1 });
  });

  it('carries the Python environment as lock content, version and name (none when the request has none)', () => {
    const pythonEnv = PythonEnvSpec.fromLock('six==1.17.0\n', { name: 'six.lock', pythonVersion: '3.12' });
    expect(plan({ pythonEnv }).pythonEnv).toEqual({ lock: 'six==1.17.0\n', pythonVersion: '3.12', name: 'six.lock' });
    expect(plan({}).pythonEnv).toBeNull();
  });

  it('carries the priority band from the resources, overridden by the request, and none by default', () => {
    expect(plan({ resources: ResourceConfig.withCpu({ priority: 'BATCH' }) }).priority).toBe('BATCH');
    expect(plan({ resources: ResourceConfig.withCpu({ priority: 'BATCH' }), priority: 'PRODUCTION' }).priority).toBe('PRODUCTION');
    expect(plan({}).priority).toBeNull();
    expect(() => plan({ priority: 'URGENT' as 'BATCH' })).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
  });

  it('maps adoptExisting to KEEP and its absence to UNSPECIFIED, with retry limits', () => {
    expect(plan({ maxRetriesFailure: 2 }, true)).toMatchObject({ existingJobPolicy: 'KEEP', maxRetriesFailure: 2, maxRetriesPreemption: 100 });
    expect(plan({}, false).existingJobPolicy).toBe('UNSPECIFIED');
  });

  it('runs a binary as its argv', () => {
    expect(plan({}).argv).toEqual(['node', '-e', '1']);
    expect(plan({}).workdirFiles).toEqual({});
  });

  it('runs a module through the generated runner with its args file', () => {
    const p = plan({ entrypoint: Entrypoint.fromModule({ module: 'experiments/x.ts', exportName: 'go', args: { a: 1 } }) });
    expect(p.argv).toEqual(['node', '--conditions=@marin/source', '--import', 'tsx', MODULE_RUNNER_FILE, MODULE_ARGS_FILE]);
    expect(JSON.parse(p.workdirFiles[MODULE_ARGS_FILE] as string)).toEqual({ module: 'experiments/x.ts', exportName: 'go', args: { a: 1 }, spreadArgs: false });
    expect(p.workdirFiles[MODULE_RUNNER_FILE]).toContain('await import(url)');
    const js = plan({ entrypoint: Entrypoint.fromModule({ module: 'tools/x.mjs', exportName: 'go' }) });
    expect(js.argv).toEqual(['node', MODULE_RUNNER_FILE, MODULE_ARGS_FILE]);
  });

  it('runs a callable’s reentry and refuses one without', () => {
    expect(plan({ entrypoint: Entrypoint.fromCallable(() => 1, { reentry: bin }) }).argv).toEqual(['node', '-e', '1']);
    expect(() => plan({ entrypoint: Entrypoint.fromCallable(() => 1) })).toThrow(expect.objectContaining({ code: 'FRAY_ENTRYPOINT_NOT_PORTABLE' }));
  });

  it('adds device default env without overriding caller values', () => {
    expect(plan({}).envVars).toMatchObject({ JAX_PLATFORMS: 'cpu', TOKENIZERS_PARALLELISM: 'false' });
    const tpu = plan({ resources: ResourceConfig.withTpu('v5litepod-16'), environment: createEnvironment({ envVars: { JAX_PLATFORMS: 'tpu' } }, {}) });
    expect(tpu.envVars).toMatchObject({ JAX_PLATFORMS: 'tpu', LIBTPU_INIT_ARGS: '--xla_tpu_scoped_vmem_limit_kib=50000' });
  });
});

describe('deviceDefaultEnv()', () => {
  it('sets JAX_PLATFORMS by device and LIBTPU_INIT_ARGS for v5 and v6e', () => {
    expect(deviceDefaultEnv({ kind: 'cpu' })).toEqual({ JAX_PLATFORMS: 'cpu' });
    expect(deviceDefaultEnv({ kind: 'gpu', variant: 'H100', count: 1 })).toEqual({ JAX_PLATFORMS: '' });
    expect(deviceDefaultEnv({ kind: 'tpu', variant: 'v5p-8' })).toEqual({ JAX_PLATFORMS: '', LIBTPU_INIT_ARGS: '--xla_tpu_scoped_vmem_limit_kib=50000' });
    expect(deviceDefaultEnv({ kind: 'tpu', variant: 'v6e-16' })).toEqual({ JAX_PLATFORMS: '', LIBTPU_INIT_ARGS: '--xla_tpu_scoped_vmem_limit_kib=98304' });
    expect(deviceDefaultEnv({ kind: 'tpu', variant: 'v4-8' })).toEqual({ JAX_PLATFORMS: '' });
  });

  it('reads the TPU family from the topology row, so an alias gets its family defaults', () => {
    expect(deviceDefaultEnv({ kind: 'tpu', variant: 'v5e-16' })).toEqual({ JAX_PLATFORMS: '', LIBTPU_INIT_ARGS: '--xla_tpu_scoped_vmem_limit_kib=50000' });
    expect(() => deviceDefaultEnv({ kind: 'tpu', variant: 'v5litepod-3' })).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
  });
});

describe('irisConstraintsOf()', () => {
  it('maps preemptible, regions, zone and alternatives', () => {
    expect(irisConstraintsOf(new ResourceConfig())).toEqual([]);
    expect(irisConstraintsOf(new ResourceConfig({ preemptible: false }))).toEqual([{ key: 'preemptible', op: 'EQ', value: 'false' }]);
    expect(irisConstraintsOf(new ResourceConfig({ regions: ['us-central1'] }))).toEqual([{ key: 'region', op: 'EQ', value: 'us-central1' }]);
    expect(irisConstraintsOf(new ResourceConfig({ regions: ['us-central1', 'europe-west4'], zone: 'us-central1-a' }))).toEqual([
      { key: 'region', op: 'IN', values: ['us-central1', 'europe-west4'] },
      { key: 'zone', op: 'EQ', value: 'us-central1-a' },
    ]);
    expect(irisConstraintsOf(ResourceConfig.withTpu(['v5litepod-16', 'v6e-16']))).toEqual([
      { key: 'device-variant', op: 'IN', values: ['v5litepod-16', 'v6e-16'] },
    ]);
  });
});

describe('irisCoschedulingOf()', () => {
  it('gangs multi-VM TPU slices by tpu-name and GPU replicas by pool; never single-VM TPU or CPU', () => {
    expect(irisCoschedulingOf({ kind: 'tpu', variant: 'v5litepod-8' }, 2)).toBeNull();
    expect(irisCoschedulingOf({ kind: 'tpu', variant: 'v5litepod-16' }, 4)).toEqual({ groupBy: 'tpu-name', tasksPerGroup: 4 });
    expect(irisCoschedulingOf({ kind: 'gpu', variant: 'H100', count: 8 }, 2)).toMatchObject({ groupBy: 'pool' });
    expect(irisCoschedulingOf({ kind: 'gpu', variant: 'H100', count: 8 }, 1)).toBeNull();
    expect(irisCoschedulingOf({ kind: 'cpu' }, 5)).toBeNull();
  });
});

describe('frayStatusOfIrisState()', () => {
  it('maps every Iris job state', () => {
    const table: Record<string, string> = {
      PENDING: 'pending',
      BUILDING: 'pending',
      UNSPECIFIED: 'pending',
      SOMETHING_NEW: 'pending',
      RUNNING: 'running',
      SUCCEEDED: 'succeeded',
      FAILED: 'failed',
      WORKER_FAILED: 'failed',
      UNSCHEDULABLE: 'failed',
      KILLED: 'stopped',
      JOB_STATE_KILLED: 'stopped',
    };
    for (const [state, status] of Object.entries(table)) expect([state, frayStatusOfIrisState(state)]).toEqual([state, status]);
  });
});
