import { describe, expect, it } from 'vitest';
import { CORE_TASKS, CORE_TASK_KEYS, coreTask } from './core-tasks.js';

describe('CORE_TASKS', () => {
  it('holds Marin\'s core tasks with their few-shot counts, in Marin\'s order', () => {
    expect(CORE_TASK_KEYS).toEqual([
      'agieval_lsat_ar', 'arc_easy', 'arc_challenge', 'boolq', 'commonsense_qa', 'copa', 'hellaswag_0shot',
      'hellaswag_10shot', 'lambada_openai', 'openbookqa', 'piqa', 'wsc273', 'winogrande',
    ]);
    expect(Object.fromEntries(CORE_TASK_KEYS.map((k) => [k, CORE_TASKS[k]?.num_fewshot]))).toEqual({
      agieval_lsat_ar: 3, arc_easy: 10, arc_challenge: 10, boolq: 10, commonsense_qa: 10, copa: 0, hellaswag_0shot: 0,
      hellaswag_10shot: 10, lambada_openai: 0, openbookqa: 0, piqa: 10, wsc273: 0, winogrande: 0,
    });
    expect(CORE_TASKS['hellaswag_10shot']).toMatchObject({ name: 'hellaswag', task_alias: 'hellaswag_10shot' });
    for (const task of Object.values(CORE_TASKS)) expect(task.metrics).toContain(task.primary);
  });

  it('refuses an unknown key with PIPELINE_CONFIG_INVALID listing the known keys', () => {
    expect(coreTask('piqa').name).toBe('piqa');
    expect(() => coreTask('hellaswag')).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID', details: expect.objectContaining({ field: 'evals', key: 'hellaswag', known: CORE_TASK_KEYS }) }));
  });
});
