import { ResourceConfig } from '@marin/fray';
import type { PythonEnvSpec, ResourceOptions } from '@marin/fray';
import type { StepContext } from '@marin/executor';
import { atomicWrite, exists, prefixJoin, readText } from '@marin/rigging';
import { readFinishedLedger } from '../../cache/cache-ledger.js';
import { PipelineError } from '../../errors.js';
import { runLevanterJob } from '../../levanter/levanter-job.js';
import { isLocalPath, levanterPath, levanterPythonEnv, levanterRuntime } from '../../levanter/levanter-runtime.js';
import type { LevanterRuntime } from '../../levanter/levanter-runtime.js';
import { toLevanterYaml } from '../../levanter/levanter-yaml.js';
import type { LevanterConfigValue } from '../../levanter/levanter-yaml.js';
import { levanterModelSection } from '../train/levanter-model-config.js';
import { latestStepDir } from '../train/train.js';
import { parseEvalStepConfig } from './eval-step-config.js';
import type { EvalStepConfig } from './eval-step-config.js';
import { buildEvalResults } from './eval-results.js';
import type { EvalResults, HarnessOutput } from './eval-results.js';
import { HARNESS_RUNNER } from './harness-runner.js';
import { localDataOverrides, localTaskOf, localTaskSpec, registeredTaskSpec, reportedName } from './harness-tasks.js';
import { formatEvalSummary } from './eval-summary.js';
import { shippedSliceOf, shippedSliceTasks } from './shipped-slices.js';
import type { HarnessTaskSpec } from './harness-tasks.js';

type ConfigObject = { [key: string]: LevanterConfigValue | undefined };

/** What the two eval jobs share. */
interface EvalJobContext {
  config: EvalStepConfig;
  modelDir: string;
  resources: ResourceConfig;
  runtime: LevanterRuntime;
  pythonEnv: PythonEnvSpec;
  signal: AbortSignal;
  progress: StepContext['progress'];
}

/**
 * The eval step: scores a Hugging Face export with Levanter. `levanter.main.eval_lm` reports loss and
 * bits per byte on the cache's validation split (overall and per tag); `levanter.eval_harness` runs the
 * lm-eval tasks, local multiple-choice tasks included (their data is copied into the step output and
 * defined inline, so they run offline). Each runs as a Fray binary job; `results.json` in lm-eval's shape
 * is written last.
 *
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID for a bad config; PIPELINE_INPUT_NOT_FOUND when no
 *   export is found under `model_path` or a local task file is missing; PIPELINE_CACHE_INVALID for an
 *   unfinished validation split; PIPELINE_JOB_FAILED when a job fails (Levanter's error line in
 *   `details.errorLine`)
 */
export async function evaluateLevanter(rawConfig: unknown, ctx: Pick<StepContext, 'signal' | 'progress'>, options: EvaluateOptions = {}): Promise<EvalResults> {
  const config = parseEvalStepConfig(rawConfig);
  if (config.task_data === 'shipped') assertShippedSlices(config.evals.filter((t) => localTaskOf(t.name) === null).map((t) => t.name));
  const modelDir = await resolveHfModel(config.model_path, config.discover_latest_checkpoint);
  const resources = config.resources === null ? new ResourceConfig() : new ResourceConfig(config.resources as ResourceOptions);
  const job: EvalJobContext = {
    config,
    modelDir,
    resources,
    runtime: levanterRuntime(resources.device, config.env_vars),
    pythonEnv: levanterPythonEnv(config.python_lock),
    signal: ctx.signal,
    progress: ctx.progress,
  };

  const hasValidation = config.cache_path !== null && (await exists(prefixJoin(config.cache_path, 'validation/shard_ledger.json')));
  if (hasValidation) await readFinishedLedger(prefixJoin(config.cache_path as string, 'validation'));
  const validation = hasValidation ? await runEvalLm(job) : null;
  const harness = config.evals.length > 0 ? await runHarness(job) : null;

  const results = buildEvalResults({
    harness,
    validation,
    modelName: evalModelName(modelDir),
    modelPath: modelDir,
    limit: config.max_eval_instances,
  });
  await atomicWrite(prefixJoin(config.evaluation_path, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const summary = formatEvalSummary(results, `eval results of ${results.model_name} (${prefixJoin(config.evaluation_path, 'results.json')})`);
  await atomicWrite(prefixJoin(config.evaluation_path, 'summary.txt'), summary);
  (options.write ?? ((text: string) => void process.stdout.write(text)))(summary);
  return results;
}

/** Injection points of {@link evaluateLevanter}. */
export interface EvaluateOptions {
  /** Receives the one-screen summary (task → metric → value ± stderr) once `results.json` is written. @default process.stdout */
  write?: (text: string) => void;
}

/**
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID naming the registered tasks without a shipped slice
 */
export function assertShippedSlices(tasks: readonly string[]): void {
  const missing = tasks.filter((t) => shippedSliceOf(t) === null);
  if (missing.length === 0) return;
  throw new PipelineError(
    'PIPELINE_CONFIG_INVALID',
    `task_data "shipped": no shipped slice of ${missing.map((t) => `"${t}"`).join(', ')} (shipped: ${shippedSliceTasks().join(', ')}); use task_data "hub" for them`,
    { details: { field: 'evals', tasks: missing, shipped: shippedSliceTasks() } },
  );
}

/**
 * The directory holding the export's `config.json`: `path` itself, `<path>/hf`, or (with `discover`)
 * the newest `step-N` below either.
 * @throws {PipelineError} PIPELINE_INPUT_NOT_FOUND when there is none
 */
export async function resolveHfModel(path: string, discover: boolean): Promise<string> {
  if (await exists(prefixJoin(path, 'config.json'))) return path;
  const base = (await exists(prefixJoin(path, 'hf'))) ? prefixJoin(path, 'hf') : path;
  if (discover) {
    const latest = await latestStepDir(base);
    if (latest !== null && (await exists(prefixJoin(latest, 'config.json')))) return latest;
  }
  throw new PipelineError('PIPELINE_INPUT_NOT_FOUND', `no Hugging Face export (a directory with config.json) at or below "${path}"; train with Hugging Face exports on`, {
    details: { path },
  });
}

/** `<run>-<step dir>` for `<run>/hf/step-N`, else the directory's base name: the `model_name` of `results.json`. */
export function evalModelName(modelDir: string): string {
  const parts = modelDir.replace(/\/+$/, '').split('/');
  const last = parts.at(-1) ?? modelDir;
  return parts.at(-2) === 'hf' && parts.length >= 3 ? `${parts.at(-3)}-${last}` : last;
}

function trainerSection(job: EvalJobContext, runId: string): ConfigObject {
  const out = job.config.evaluation_path;
  return {
    id: runId,
    mp: 'p=f32,c=f32',
    tracker: { type: 'json_file', output_path: levanterPath(prefixJoin(out, runId)) },
    log_dir: isLocalPath(out) ? levanterPath(prefixJoin(out, 'logs')) : 'logs',
    require_accelerator: job.resources.device.kind === 'cpu' ? false : undefined,
    train_batch_size: job.config.eval_batch_size,
    per_device_eval_parallelism: job.config.eval_batch_size,
    max_eval_batches: job.config.max_eval_batches,
    jax_compilation_cache_dir: job.config.compilation_cache_dir ?? undefined,
  };
}

function modelSection(job: EvalJobContext): ConfigObject {
  const model = levanterPath(job.modelDir);
  return levanterModelSection(job.config.model, model, model) as ConfigObject;
}

async function runEvalLm(job: EvalJobContext): Promise<Record<string, unknown>> {
  const { config } = job;
  const out = config.evaluation_path;
  const model = levanterPath(job.modelDir);
  const evalLmConfig: ConfigObject = {
    hf_checkpoint: model,
    model: modelSection(job),
    data: {
      tokenizer: model,
      cache_dir: null,
      auto_build_caches: false,
      components: { [config.component_name]: { type: 'cached', cache_dir: levanterPath(config.cache_path as string), source: null, tags: config.tags } },
    },
    trainer: trainerSection(job, 'eval_lm'),
    max_eval_length: config.model.max_seq_len,
  };
  const configPath = prefixJoin(out, 'eval_lm_config.yaml');
  await atomicWrite(configPath, toLevanterYaml(evalLmConfig, ['Levanter EvalLmConfig written by @marin/pipeline\'s eval step.']));
  await runLevanterJob({
    what: 'eval_lm',
    jobName: `eval_lm-${evalModelName(job.modelDir)}`,
    args: ['-m', 'levanter.main.eval_lm', '--config_path', levanterPath(configPath)],
    resources: job.resources,
    envVars: job.runtime.envVars,
    pythonEnv: job.pythonEnv,
    signal: job.signal,
    ...(job.progress === undefined ? {} : { progress: job.progress }),
    configPath,
    logPath: prefixJoin(out, 'logs/eval_lm-job.log'),
  });
  return readJsonObject(prefixJoin(out, 'eval_lm/eval_results.json'), 'eval_lm');
}

async function runHarness(job: EvalJobContext): Promise<HarnessOutput> {
  const { config } = job;
  const out = config.evaluation_path;
  const tasks: HarnessTaskSpec[] = [];
  const taskData: Record<string, Record<string, unknown>> = {};
  for (const evalTask of config.evals) {
    const local = localTaskOf(evalTask.name);
    if (local === null) {
      tasks.push(registeredTaskSpec(evalTask));
      if (config.task_data === 'shipped') taskData[reportedName(evalTask)] = await copyShippedSlice(evalTask.name, prefixJoin(out, `tasks/${reportedName(evalTask)}`));
      continue;
    }
    if (!(await exists(local.source))) {
      throw new PipelineError('PIPELINE_INPUT_NOT_FOUND', `eval task file "${local.source}" does not exist`, { details: { task: evalTask.name } });
    }
    // lm-eval reads the task's data through Hugging Face datasets: a directory whose test.jsonl is the test split.
    const datasetDir = prefixJoin(out, `tasks/${local.name}`);
    await atomicWrite(prefixJoin(datasetDir, 'test.jsonl'), await readText(local.source));
    const spec = localTaskSpec(local, levanterPath(datasetDir), evalTask.num_fewshot, evalTask.task_alias);
    await atomicWrite(prefixJoin(out, `tasks/${local.name}.yaml`), toLevanterYaml(spec as LevanterConfigValue, [`lm-eval task "${local.name}" over ${local.source}`]));
    tasks.push(spec);
  }
  const model = levanterPath(job.modelDir);
  const harnessConfig: ConfigObject = {
    eval_harness: {
      task_spec: tasks as LevanterConfigValue,
      max_examples: config.max_eval_instances,
      max_length: config.model.max_seq_len,
      log_samples: false,
      // lm-eval computes no standard errors with 0; for means they are closed-form, so this costs nothing.
      bootstrap_iters: 100000,
    },
    tokenizer: model,
    checkpoint_path: model,
    checkpoint_is_hf: true,
    trainer: trainerSection(job, 'eval_harness'),
    model: modelSection(job),
  };
  const configPath = prefixJoin(out, 'eval_harness_config.yaml');
  await atomicWrite(configPath, toLevanterYaml(harnessConfig, ['Levanter EvalHarnessMainConfig written by @marin/pipeline\'s eval step.']));
  const resultsUrl = prefixJoin(out, 'eval_harness/lm_eval_results.json');
  const taskDataPath = prefixJoin(out, 'tasks/task_data.json');
  await atomicWrite(taskDataPath, `${JSON.stringify(taskData, null, 2)}\n`);
  await runLevanterJob({
    what: 'eval_harness',
    jobName: `eval_harness-${evalModelName(job.modelDir)}`,
    args: ['-c', HARNESS_RUNNER, levanterPath(resultsUrl), levanterPath(taskDataPath), '--config_path', levanterPath(configPath)],
    resources: job.resources,
    envVars: job.runtime.envVars,
    pythonEnv: job.pythonEnv,
    signal: job.signal,
    ...(job.progress === undefined ? {} : { progress: job.progress }),
    configPath,
    logPath: prefixJoin(out, 'logs/eval_harness-job.log'),
  });
  return (await readJsonObject(resultsUrl, 'eval_harness')) as HarnessOutput;
}

/**
 * Copies the shipped slice of registered task `task` into `dir` (`<split>.jsonl`) and returns the dataset
 * overrides that point the task's registered definition at the copies.
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID when no slice is shipped for `task`
 */
async function copyShippedSlice(task: string, dir: string): Promise<Record<string, unknown>> {
  assertShippedSlices([task]);
  const slice = shippedSliceOf(task) as NonNullable<ReturnType<typeof shippedSliceOf>>;
  const files: Record<string, string> = {};
  for (const [split, source] of Object.entries(slice.splits)) {
    const copy = prefixJoin(dir, `${split}.jsonl`);
    await atomicWrite(copy, await readText(source));
    files[split] = levanterPath(copy);
  }
  return localDataOverrides(files);
}

async function readJsonObject(url: string, what: string): Promise<Record<string, unknown>> {
  try {
    const parsed: unknown = JSON.parse(await readText(url));
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch (cause) {
    throw new PipelineError('PIPELINE_JOB_FAILED', `Levanter ${what} succeeded but its results "${url}" cannot be read`, { cause, details: { what, stage: 'results' } });
  }
  throw new PipelineError('PIPELINE_JOB_FAILED', `Levanter ${what} wrote "${url}", which is not a JSON object`, { details: { what, stage: 'results' } });
}
