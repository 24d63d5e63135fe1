import { describe, expect, it } from 'vitest';
import { buildTaskEnv, portEnvName } from './task-env.js';
import type { TaskEnvInput } from './task-env.js';

function input(overrides: Partial<TaskEnvInput> = {}): TaskEnvInput {
  return {
    daemonEnv: { PATH: '/usr/bin', HOME: '/home/w', SECRET_OF_DAEMON: 'x', LANG: 'C.UTF-8' },
    workdir: '/cache/workdirs/_alice_train_0_attempt_2',
    taskEnv: {},
    jobEnv: {},
    jobId: '/alice/train',
    taskId: '/alice/train/0',
    taskIndex: 0,
    numTasks: 2,
    attemptId: 2,
    attemptUid: '9f2c04d1a7b3e855',
    user: 'alice',
    workerId: 'w-1',
    controllerAddress: '127.0.0.1:10000',
    advertiseHost: '127.0.0.1',
    bundleId: 'b'.repeat(64),
    ports: {},
    dependencyGroups: [],
    constraints: [],
    workerAttributes: {},
    ...overrides,
  };
}

describe('buildTaskEnv()', () => {
  it('sets the IRIS_* identity of the attempt', () => {
    const env = buildTaskEnv(input());
    expect(env).toMatchObject({
      IRIS_JOB_ID: '/alice/train',
      IRIS_TASK_ID: '/alice/train/0',
      IRIS_TASK_INDEX: '0',
      IRIS_NUM_TASKS: '2',
      IRIS_ATTEMPT_ID: '2',
      IRIS_ATTEMPT_UID: '9f2c04d1a7b3e855',
      IRIS_USER: 'alice',
      IRIS_WORKER_ID: 'w-1',
      IRIS_CONTROLLER_ADDRESS: '127.0.0.1:10000',
      IRIS_WORKDIR: '/cache/workdirs/_alice_train_0_attempt_2',
      TMPDIR: '/cache/workdirs/_alice_train_0_attempt_2/.tmp',
    });
    expect(env['IRIS_AUTH_TOKEN']).toBeUndefined();
  });

  it('copies only the allowed daemon variables and puts node_modules/.bin first on PATH', () => {
    const env = buildTaskEnv(input());
    expect(env['SECRET_OF_DAEMON']).toBeUndefined();
    expect(env['HOME']).toBe('/home/w');
    expect(env['PATH']).toBe('/cache/workdirs/_alice_train_0_attempt_2/node_modules/.bin:/usr/bin');
  });

  it('lets job env override task env and daemon values but never IRIS_* keys', () => {
    const env = buildTaskEnv(
      input({ taskEnv: { A: 'worker', B: 'worker' }, jobEnv: { B: 'job', HOME: '/job-home', IRIS_JOB_ID: '/evil/job' } }),
    );
    expect(env).toMatchObject({ A: 'worker', B: 'job', HOME: '/job-home', IRIS_JOB_ID: '/alice/train' });
  });

  it('adds ports, gang, TPU, region and auth variables', () => {
    const env = buildTaskEnv(
      input({
        ports: { 'http-api': 4242 },
        authToken: 't0k',
        workerAttributes: { region: 'us-east1', zone: 'us-east1-b' },
        gang: { groupValue: 'slice-a', rank: 2, groupSize: 4, sliceIndex: 0, numSlices: 1, peerHosts: ['h0', 'h1', 'h2', 'h3'] },
        tpu: { name: 'slice-a', workerId: 2, acceleratorType: 'v5litepod-16' },
      }),
    );
    expect(env).toMatchObject({
      IRIS_PORT_HTTP_API: '4242',
      IRIS_AUTH_TOKEN: 't0k',
      IRIS_WORKER_REGION: 'us-east1',
      IRIS_WORKER_ZONE: 'us-east1-b',
      IRIS_GANG_RANK: '2',
      IRIS_GANG_SIZE: '4',
      IRIS_GANG_HOSTS: 'h0,h1,h2,h3',
      IRIS_SLICE_INDEX: '0',
      IRIS_NUM_SLICES: '1',
      TPU_NAME: 'slice-a',
      TPU_WORKER_ID: '2',
      TPU_ACCELERATOR_TYPE: 'v5litepod-16',
      TPU_WORKER_HOSTNAMES: 'h0,h1,h2,h3',
    });
  });

  it('serialises env, groups and constraints as JSON for child jobs', () => {
    const env = buildTaskEnv(input({ jobEnv: { X: '1' }, dependencyGroups: ['eval'], constraints: [{ key: 'zone' }] }));
    expect(JSON.parse(env['IRIS_JOB_ENV'] as string)).toEqual({ X: '1' });
    expect(JSON.parse(env['IRIS_JOB_DEPENDENCY_GROUPS'] as string)).toEqual(['eval']);
    expect(JSON.parse(env['IRIS_JOB_CONSTRAINTS'] as string)).toEqual([{ key: 'zone' }]);
  });
});

describe('portEnvName()', () => {
  it('upper-cases and replaces other characters with _', () => {
    expect(portEnvName('grpc.main-1')).toBe('IRIS_PORT_GRPC_MAIN_1');
  });
});
