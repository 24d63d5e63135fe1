import { describe, expect, it } from 'vitest';
import { ConstraintOp } from '../gen/iris/v1/types.js';
import { jobSpecToRequest, resolveJobName } from './job-spec.js';
import { coresToMillicores, parseSize } from '../core/sizes.js';
import { irisContext } from '../core/iris-context.js';

describe('sizes', () => {
  it.each([
    ['512', 512],
    ['64k', 65536],
    ['1m', 2 ** 20],
    ['8g', 8 * 2 ** 30],
    ['8gb', 8 * 2 ** 30],
    ['8GiB', 8 * 2 ** 30],
    ['1t', 2 ** 40],
  ])('parses %s', (input, bytes) => {
    expect(parseSize(input)).toBe(bytes);
  });
  it('rejects garbage and converts cores', () => {
    expect(() => parseSize('lots')).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
    expect(coresToMillicores(0.5)).toBe(500);
    expect(() => coresToMillicores(-1)).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });
});

describe('job specs', () => {
  it('names jobs /<user>/<name> outside a task and <parent>/<name> inside one', () => {
    expect(resolveJobName('train', 'alice', {})).toBe('/alice/train');
    expect(resolveJobName('train', undefined, { IRIS_USER: 'bob' })).toBe('/bob/train');
    expect(resolveJobName('eval', undefined, { IRIS_JOB_ID: '/alice/train', IRIS_TASK_ID: '/alice/train/0' })).toBe('/alice/train/eval');
    expect(resolveJobName('/x/y', 'alice', { IRIS_JOB_ID: '/alice/train', IRIS_TASK_ID: '/alice/train/0' })).toBe('/x/y');
  });
  it('builds the wire request in domain units', () => {
    const req = jobSpecToRequest(
      {
        name: 'j',
        user: 'u',
        command: ['node', 'x.js'],
        resources: { cpu: 2, memory: '8g', device: { kind: 'tpu', variant: 'v5e-16' } },
        constraints: [{ key: 'region', op: 'IN', values: ['us', 'eu'] }],
        env: { A: 'b' },
        existingJobPolicy: 'KEEP',
      },
      'a'.repeat(64),
      {},
    );
    expect(req).toMatchObject({
      name: '/u/j',
      bundleId: 'a'.repeat(64),
      resources: { cpuMillicores: 2000, memoryBytes: 8 * 2 ** 30, device: { kind: { $case: 'tpu', value: { variant: 'v5e-16' } } } },
      environment: { envVars: { A: 'b' } },
      existingJobPolicy: 2,
    });
    expect(req.constraints[0]).toMatchObject({ key: 'region', op: ConstraintOp.CONSTRAINT_OP_IN, values: [{ v: { $case: 'stringValue', value: 'us' } }, { v: { $case: 'stringValue', value: 'eu' } }] });
  });
  it('rejects a spec without a command', () => {
    expect(() => jobSpecToRequest({ name: 'j' }, '', {})).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });
});

describe('irisContext()', () => {
  it('is null outside a task and reads IRIS_* inside one', () => {
    expect(irisContext({})).toBeNull();
    expect(
      irisContext({ IRIS_JOB_ID: '/u/j', IRIS_TASK_ID: '/u/j/1', IRIS_TASK_INDEX: '1', IRIS_NUM_TASKS: '4', IRIS_ATTEMPT_ID: '2', IRIS_PORT_HTTP: '8080', IRIS_GANG_RANK: '1', IRIS_GANG_SIZE: '4', IRIS_GANG_HOSTS: 'a,b,c,d' }),
    ).toMatchObject({ jobId: '/u/j', taskIndex: 1, numTasks: 4, attemptId: 2, ports: { HTTP: 8080 }, gang: { rank: 1, size: 4, hosts: ['a', 'b', 'c', 'd'] } });
  });
});

describe('job specs: Python environments', () => {
  it('carries the lock content, version and name, with defaults for the last two', () => {
    const req = jobSpecToRequest({ name: '/a/py', command: ['python', '-V'], pythonEnv: { lock: 'six==1.17.0\n', pythonVersion: '3.12', name: 'six.lock' } }, '', {});
    expect(req.environment?.pythonEnv).toEqual({ lock: 'six==1.17.0\n', pythonVersion: '3.12', name: 'six.lock' });
    const bare = jobSpecToRequest({ name: '/a/py', command: ['python', '-V'], pythonEnv: { lock: 'six==1.17.0\n' } }, '', {});
    expect(bare.environment?.pythonEnv).toEqual({ lock: 'six==1.17.0\n', pythonVersion: '', name: '' });
    expect(jobSpecToRequest({ name: '/a/plain', command: ['true'] }, '', {}).environment?.pythonEnv).toBeUndefined();
  });

  it('rejects an empty lock and a malformed Python version', () => {
    expect(() => jobSpecToRequest({ name: '/a/py', command: ['true'], pythonEnv: { lock: '  ' } }, '', {})).toThrow(
      expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }),
    );
    expect(() => jobSpecToRequest({ name: '/a/py', command: ['true'], pythonEnv: { lock: 'six==1.17.0', pythonVersion: '../x' } }, '', {})).toThrow(
      expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }),
    );
  });
});
