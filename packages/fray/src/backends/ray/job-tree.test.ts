import { describe, expect, it } from 'vitest';
import { descendantsOf } from './job-tree.js';
import type { RayJobInfo } from './ray-jobs-api.js';

const job = (id: string, parent?: string): RayJobInfo => ({
  submissionId: id,
  state: 'RUNNING',
  entrypoint: '',
  message: '',
  errorType: null,
  startTimeMs: null,
  endTimeMs: null,
  metadata: parent === undefined ? {} : { fray_parent: parent },
  exitCode: null,
});

describe('descendantsOf()', () => {
  it('follows fray_parent through every generation, and only below the roots', () => {
    const jobs = [job('p'), job('c1', 'p'), job('c2', 'p'), job('g1', 'c1'), job('other'), job('o1', 'other')];
    expect(descendantsOf(jobs, ['p']).map((j) => j.submissionId)).toEqual(['c1', 'c2', 'g1']);
    expect(descendantsOf(jobs, ['c1']).map((j) => j.submissionId)).toEqual(['g1']);
    expect(descendantsOf(jobs, ['p', 'other']).map((j) => j.submissionId).sort()).toEqual(['c1', 'c2', 'g1', 'o1']);
  });

  it('ends on a cycle and on jobs without a parent', () => {
    expect(descendantsOf([job('a', 'b'), job('b', 'a')], ['a']).map((j) => j.submissionId)).toEqual(['b']);
    expect(descendantsOf([job('x')], ['x'])).toEqual([]);
  });
});
