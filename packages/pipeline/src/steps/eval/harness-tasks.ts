import { isAbsolute } from 'node:path';
import { shippedEvalTaskPath } from '../../levanter/levanter-runtime.js';
import type { EvalStepConfig } from './eval-step-config.js';

/** An lm-eval task as Levanter's `TaskConfig` takes it (inline definition or registered name). */
export type HarnessTaskSpec = Record<string, string | number | boolean | null | Record<string, unknown> | Record<string, unknown>[]>;

/** A multiple-choice task defined from a local JSONL file of `{ "query", "choices", "gold" }` records. */
export interface LocalTask {
  /** The task's name (the file's base name for a path). */
  name: string;
  /** The JSONL file the task's `test.jsonl` is copied from. */
  source: string;
}

/** The local task a name refers to (`tiny_mc`, or an absolute `.jsonl` path), else `null` (a registered task). */
export function localTaskOf(name: string): LocalTask | null {
  const shipped = shippedEvalTaskPath(name);
  if (shipped !== null) return { name, source: shipped };
  if (isAbsolute(name) && name.endsWith('.jsonl')) {
    const base = name.slice(name.lastIndexOf('/') + 1, -'.jsonl'.length);
    return { name: base, source: name };
  }
  return null;
}

/**
 * The inline lm-eval definition of a local multiple-choice task whose data is `<datasetDir>/test.jsonl`:
 * the query is the prompt, each choice is scored after `" "`, and `acc`/`acc_norm` are averaged, as
 * lm-eval's own multiple-choice tasks do. Few-shot examples come from the same split.
 */
export function localTaskSpec(task: LocalTask, datasetDir: string, numFewshot: number, alias: string | undefined): HarnessTaskSpec {
  const spec: HarnessTaskSpec = {
    task: task.name,
    num_fewshot: numFewshot,
    dataset_path: datasetDir,
    output_type: 'multiple_choice',
    test_split: 'test',
    fewshot_split: 'test',
    doc_to_text: '{{query}}',
    doc_to_choice: '{{choices}}',
    doc_to_target: '{{gold}}',
    metric_list: [
      { metric: 'acc', aggregation: 'mean', higher_is_better: true },
      { metric: 'acc_norm', aggregation: 'mean', higher_is_better: true },
    ],
    metadata: { version: 1 },
  };
  if (alias !== undefined) spec['task_alias'] = alias;
  return spec;
}

/** The name lm-eval reports a task's results under: its alias, else its name. */
export function reportedName(evalTask: EvalStepConfig['evals'][number]): string {
  return evalTask.task_alias ?? evalTask.name;
}

/**
 * The dataset overrides that make a registered task read local split files (`json` files named per split)
 * through its own registered definition.
 */
export function localDataOverrides(splits: Record<string, string>): Record<string, unknown> {
  return { dataset_path: 'json', dataset_name: null, dataset_kwargs: { data_files: splits } };
}

/** The spec of a task registered in lm-eval (its definition from lm-eval; its data from the hub unless overridden). */
export function registeredTaskSpec(evalTask: EvalStepConfig['evals'][number]): HarnessTaskSpec {
  const spec: HarnessTaskSpec = { task: evalTask.name, num_fewshot: evalTask.num_fewshot };
  if (evalTask.task_alias !== undefined) spec['task_alias'] = evalTask.task_alias;
  return spec;
}
