import { PipelineError } from '../../errors.js';

/** One of Marin's standard lm-eval tasks: what to run and which metrics its lm-eval definition reports. */
export interface CoreTask {
  /** The lm-eval task name. */
  name: string;
  num_fewshot: number;
  /** The name results are reported under when it differs from `name` (two few-shot settings of one task). */
  task_alias?: string;
  /** The metrics lm-eval's definition of the task reports (its `metric_list`), in that order. */
  metrics: readonly string[];
  /** The metric the summary leads with: `acc_norm` where the task reports it, else `acc`. */
  primary: string;
}

const MC = ['acc', 'acc_norm'] as const;
const ACC = ['acc'] as const;

/**
 * Marin's `CORE_TASKS` (`experiments/evals/task_configs.py`, the DCLM core subset), keyed by the name each
 * reports under (`task_alias`, else the task name): the task, its few-shot count, and the metrics lm-eval
 * 0.4.13's task definitions report for it.
 */
export const CORE_TASKS: Readonly<Record<string, CoreTask>> = {
  agieval_lsat_ar: { name: 'agieval_lsat_ar', num_fewshot: 3, metrics: MC, primary: 'acc_norm' },
  arc_easy: { name: 'arc_easy', num_fewshot: 10, metrics: MC, primary: 'acc_norm' },
  arc_challenge: { name: 'arc_challenge', num_fewshot: 10, metrics: MC, primary: 'acc_norm' },
  boolq: { name: 'boolq', num_fewshot: 10, metrics: ACC, primary: 'acc' },
  commonsense_qa: { name: 'commonsense_qa', num_fewshot: 10, metrics: ACC, primary: 'acc' },
  copa: { name: 'copa', num_fewshot: 0, metrics: ACC, primary: 'acc' },
  hellaswag_0shot: { name: 'hellaswag', num_fewshot: 0, task_alias: 'hellaswag_0shot', metrics: MC, primary: 'acc_norm' },
  hellaswag_10shot: { name: 'hellaswag', num_fewshot: 10, task_alias: 'hellaswag_10shot', metrics: MC, primary: 'acc_norm' },
  lambada_openai: { name: 'lambada_openai', num_fewshot: 0, metrics: ['perplexity', 'acc'], primary: 'acc' },
  openbookqa: { name: 'openbookqa', num_fewshot: 0, metrics: MC, primary: 'acc_norm' },
  piqa: { name: 'piqa', num_fewshot: 10, metrics: MC, primary: 'acc_norm' },
  wsc273: { name: 'wsc273', num_fewshot: 0, metrics: ACC, primary: 'acc' },
  winogrande: { name: 'winogrande', num_fewshot: 0, metrics: ACC, primary: 'acc' },
};

/** The keys of {@link CORE_TASKS}, in Marin's order. */
export const CORE_TASK_KEYS: readonly string[] = Object.keys(CORE_TASKS);

/** The core task a reported name (alias or task name) belongs to, if any: used to order a summary's metrics. */
export function coreTaskOf(reportedName: string): CoreTask | undefined {
  return CORE_TASKS[reportedName];
}

/**
 * The core task a key names.
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID (`details.field: 'evals'`, `details.known`) for an unknown key
 */
export function coreTask(key: string): CoreTask {
  const task = CORE_TASKS[key];
  if (task !== undefined) return task;
  const near = CORE_TASK_KEYS.filter((k) => k.includes(key) || key.includes(k.split('_')[0] ?? k));
  throw new PipelineError(
    'PIPELINE_CONFIG_INVALID',
    `unknown eval task key "${key}"${near.length > 0 ? ` (did you mean ${near.map((k) => `"${k}"`).join(', ')}?)` : ''}; keys are Marin's CORE_TASKS: ${CORE_TASK_KEYS.join(', ')}, or a shipped task; pass { name, num_fewshot } for any other lm-eval task`,
    { details: { field: 'evals', key, known: CORE_TASK_KEYS } },
  );
}
