import { describe, expect, it } from 'vitest';
import { attemptNameOf, parseAttemptName, parseJobName, parseTaskId, taskIdOf } from './job-names.js';
import { MAX_ATTEMPT_UID_RETRIES, mintAttemptUid, randomAttemptUid } from '../controller/attempt-uid.js';

describe('job names', () => {
  it('render and parse /u/j, /u/j/0, /u/j/0:1', () => {
    expect(parseJobName('/u/j')).toMatchObject({ user: 'u', depth: 1, parent: null, root: '/u/j' });
    expect(parseJobName('/u/j/eval')).toMatchObject({ depth: 2, parent: '/u/j', root: '/u/j' });
    expect(taskIdOf('/u/j', 0)).toBe('/u/j/0');
    expect(parseTaskId('/u/j/0')).toEqual({ jobId: '/u/j', index: 0 });
    expect(attemptNameOf('/u/j/0', 1)).toBe('/u/j/0:1');
    expect(parseAttemptName('/u/j/0:1')).toEqual({ taskId: '/u/j/0', attemptId: 1 });
  });
  it.each(['', 'u/j', '/u', '/u/12', '/u/j/007', '/u/..', '/u/a:b', `/u/${'x'.repeat(129)}`])('rejects %j', (name) => {
    expect(() => parseJobName(name)).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });
});

describe('attempt uids', () => {
  it('are 16 lower-case hex chars and distinct', () => {
    const uids = new Set(Array.from({ length: 100 }, randomAttemptUid));
    expect(uids.size).toBe(100);
    for (const u of uids) expect(u).toMatch(/^[0-9a-f]{16}$/);
  });
  it('are re-minted on collision', () => {
    const draws = ['aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb'];
    expect(mintAttemptUid((u) => u === 'aaaaaaaaaaaaaaaa', () => draws.shift()!)).toBe('bbbbbbbbbbbbbbbb');
  });
  it('fail with "exhausted attempt_uid retries" after 5 collisions in a row', () => {
    let n = 0;
    expect(() =>
      mintAttemptUid(
        () => true,
        () => {
          n++;
          return 'cccccccccccccccc';
        },
      ),
    ).toThrow('exhausted attempt_uid retries');
    expect(n).toBe(MAX_ATTEMPT_UID_RETRIES);
  });
});
