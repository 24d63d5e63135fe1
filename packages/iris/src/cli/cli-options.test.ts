import { describe, expect, it } from 'vitest';
import { defaultJobName, parseEnvFlags, parseGpuSpec } from './cli-options.js';
import { joinEnvPairs } from './env-pairs.js';
import { formatLogLine } from './cli-format.js';

describe('CLI options', () => {
  it('splits --env at the first = and copies a bare key from the caller', () => {
    expect(parseEnvFlags(['A=B=C', 'HOME_DIR'], { HOME_DIR: '/h' })).toEqual({ A: 'B=C', HOME_DIR: '/h' });
    expect(() => parseEnvFlags(['MISSING'], {})).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });
  it("accepts Marin's -e KEY VALUE before the command's --, and leaves the other forms alone", () => {
    expect(joinEnvPairs(['job', 'run', '-e', 'A', 'x y', '--env', 'B', '2', '-e', 'C=3', '-e', 'BARE', '--cpu', '1', '--', 'node', '-e', 'K', 'V'])).toEqual([
      'job', 'run', '-e', 'A=x y', '--env', 'B=2', '-e', 'C=3', '-e', 'BARE', '--cpu', '1', '--', 'node', '-e', 'K', 'V',
    ]);
    expect(joinEnvPairs(['job', 'run', '-e', 'BARE', '--', 'cmd'])).toEqual(['job', 'run', '-e', 'BARE', '--', 'cmd']);
    expect(joinEnvPairs(['job', 'run', '-e', 'BARE', 'node', 'x.js'])).toEqual(['job', 'run', '-e', 'BARE', 'node', 'x.js']);
  });
  it('parses --gpu H100x8, 8 and H100', () => {
    expect(parseGpuSpec('H100x8')).toEqual({ variant: 'h100', count: 8 });
    expect(parseGpuSpec('8')).toEqual({ variant: 'auto', count: 8 });
    expect(parseGpuSpec('H100')).toEqual({ variant: 'h100', count: 1 });
    expect(() => parseGpuSpec('Z9000')).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });
  it('names runs after the script or command', () => {
    const at = new Date(Date.UTC(2026, 2, 6, 7, 8, 9));
    expect(defaultJobName(['node', 'scripts/train.ts'], at)).toBe('iris-run-train-20260306-070809');
    expect(defaultJobName(['node', '-e', 'x'], at)).toBe('iris-run-node-20260306-070809');
    expect(defaultJobName(['/usr/bin/true'], at)).toBe('iris-run-true-20260306-070809');
  });
  it('formats log lines as [HH:MM:SS] task=<index> | <line>', () => {
    const e = { taskId: '/u/j/3', attemptId: 0, attemptUid: 'x', seq: 0, timestampMs: Date.UTC(2026, 0, 1, 12, 34, 56), source: 'build' as const, level: 20, data: 'npm i' };
    expect(formatLogLine('/u/j', e)).toBe('[12:34:56] task=3 | [build] npm i');
    expect(formatLogLine('/u/j', { ...e, taskId: '/u/j/c/0', source: 'stdout' })).toBe('[12:34:56] task=c/0 | npm i');
  });
});
