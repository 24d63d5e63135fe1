import { afterEach, describe, expect, it } from 'vitest';
import { grpcStatusOfError } from '../wire/grpc-errors.js';
import { jobSpecToRequest } from '../client/job-spec.js';
import { parseSize } from '../core/sizes.js';
import { createStateHarness } from '../../test/helpers/controller-harness.js';

type Harness = ReturnType<typeof createStateHarness>;
let h: Harness;
afterEach(() => h?.close());

describe('failures the job causes are refused at submit', () => {
  it.each([
    ['a NUL byte in argv', { entrypoint: { run: { argv: ['echo', 'a\0b'] } } }],
    ['a NUL byte in a setup command', { entrypoint: { run: { argv: ['true'] }, setupCommands: [{ argv: ['npm\0'] }] } }],
    ['a NUL byte in an env value', { environment: { envVars: { A: 'x\0y' } } }],
    ['a NUL byte in an env key', { environment: { envVars: { 'A\0B': 'x' } } }],
    ['an absolute workdir file', { entrypoint: { run: { argv: ['true'] }, workdirFiles: { '/etc/passwd': Buffer.from('x') } } }],
    ['a workdir file escaping with ..', { entrypoint: { run: { argv: ['true'] }, workdirFiles: { 'a/../../x': Buffer.from('x') } } }],
    ['an empty workdir path component', { entrypoint: { run: { argv: ['true'] }, workdirFiles: { 'a//b': Buffer.from('x') } } }],
    ['negative replicas', { replicas: -1 }],
    ['memory past 2^53', { resources: { cpuMillicores: 1000, memoryBytes: 2 ** 60 } }],
    ['a timeout past 2^53', { timeoutMs: 2 ** 60 }],
  ])('rejects %s with IRIS_INVALID_ARGUMENT and writes nothing', (_label, req) => {
    h = createStateHarness();
    expect(() => h.launch('/alice/bad', req)).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
    expect(h.count('jobs')).toBe(0);
  });

  it('accepts workdir files in subdirectories', () => {
    h = createStateHarness();
    expect(h.launch('/alice/ok', { entrypoint: { run: { argv: ['true'] }, workdirFiles: { 'conf/a.json': Buffer.from('{}') } } })).toBe('/alice/ok');
  });
});

describe('client-side spec checks', () => {
  it('rejects replicas < 1 and sizes past what the wire carries', () => {
    expect(() => jobSpecToRequest({ name: 'j', command: ['true'], replicas: 0 }, '')).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
    expect(() => parseSize('9999999999p')).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
    expect(() => jobSpecToRequest({ name: 'j', command: ['true'], resources: { cpu: 1e12 } }, '')).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });
});

describe('server errors that are not bugs', () => {
  it('maps a full disk to RESOURCE_EXHAUSTED and an unusable filesystem to UNAVAILABLE, not INTERNAL', () => {
    const full = grpcStatusOfError(Object.assign(new Error('write failed'), { code: 'ENOSPC' }));
    expect(full.metadata.get('iris-error-code')).toEqual(['IRIS_INSUFFICIENT_RESOURCES']);
    const sqliteFull = grpcStatusOfError(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }));
    expect(sqliteFull.metadata.get('iris-error-code')).toEqual(['IRIS_INSUFFICIENT_RESOURCES']);
    expect(grpcStatusOfError(Object.assign(new Error('ro'), { code: 'EROFS' })).metadata.get('iris-error-code')).toEqual(['IRIS_UNAVAILABLE']);
    expect(grpcStatusOfError(new TypeError('a bug')).metadata.get('iris-error-code')).toEqual(['IRIS_INTERNAL']);
  });
});
