import { ResourceConfig } from '@marin/fray';
import type { ResourceOptions } from '@marin/fray';
import type { StepContext } from '@marin/executor';
import { atomicWrite, exists, prefixJoin, readText } from '@marin/rigging';
import { PipelineError } from '../../errors.js';
import { runLevanterJob } from '../../levanter/levanter-job.js';
import type { LevanterJobResult } from '../../levanter/levanter-job.js';
import { parseJsonLoggerRecords, resumedFromStep } from '../../levanter/levanter-log.js';
import { metricsPathOf } from '../../levanter/levanter-metrics.js';
import { isLocalPath, levanterPath, levanterPythonEnv, levanterRuntime, levanterTokenizerPath } from '../../levanter/levanter-runtime.js';
import { toLevanterYaml } from '../../levanter/levanter-yaml.js';
import { referenceHfConfig } from './levanter-model-config.js';
import { checkMixtureCaches, mapCachePaths } from './mixture-data.js';
import type { MixtureData } from './mixture-data.js';
import { checkInitFrom, latestStepDir, resolveNumTrainSteps } from './train-lm-budget.js';

export { latestStepDir } from './train-lm-budget.js';
import { buildTrainLmConfig, trainLayout } from './train-lm-config.js';
import { parseTrainStepConfig } from './train-step-config.js';
import type { TrainStepConfig } from './train-step-config.js';
import { summarizeTrainRecords, trackerMetricsLine } from './train-summary.js';
import type { TrainSummary } from './train-summary.js';

/**
 * The train step: writes Levanter's `TrainLmConfig` to `<out>/levanter_config.yaml`, runs
 * `python -m levanter.main.train_lm` as a Fray binary job with the configured resources in the
 * Levanter Python environment, and, once it succeeds, writes `<out>/train_summary.json` from the
 * metrics Levanter logged. Checkpoints go to `<out>/checkpoints`, Hugging Face exports to `<out>/hf`,
 * the job's whole output to `<out>/logs/train_lm-<time>.log`, its metrics per step to
 * `<out>/metrics/metrics.jsonl`, which `ctx.progress` shows as a status line while the job runs.
 * A rerun after a killed or failed job resumes from Levanter's newest checkpoint there. Aborting
 * `ctx.signal` terminates the job.
 *
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID for a bad config; PIPELINE_CACHE_INVALID when the
 *   token cache's train split is missing or unfinished (before any job is submitted); PIPELINE_JOB_FAILED
 *   when the job fails (`details.errorLine` is Levanter's own error, `details.outputTail` the last meaningful
 *   lines of its output, `details.configPath` the YAML it read),
 *   its Python environment cannot be built, or it is terminated
 */
export async function trainLevanter(rawConfig: unknown, ctx: Pick<StepContext, 'signal' | 'progress'>): Promise<TrainSummary> {
  const config = parseTrainStepConfig(rawConfig);
  const data = stepData(config);
  const caches = await checkMixtureCaches(data);
  const numTrainSteps = resolveNumTrainSteps(config, caches);
  const initFromHf = await checkInitFrom(config);
  const resources = config.resources === null ? new ResourceConfig() : new ResourceConfig(config.resources as ResourceOptions);
  const runtime = levanterRuntime(resources.device, config.env_vars);
  const pythonEnv = levanterPythonEnv(config.python_lock);
  const out = config.output_path;
  const runId = basename(out);
  const layout = trainLayout(out);
  const levanterLayout = trainLayout(levanterPath(out));
  // Levanter's log directory must be on local disk; on a bucket output it stays in the job's directory.
  const logDir = isLocalPath(out) ? levanterLayout.logsPath : 'logs';
  const levanterConfig = buildTrainLmConfig({ ...config, initialize_from_hf: initFromHf === null ? null : levanterPath(initFromHf) }, {
    runId,
    outputPath: levanterPath(out),
    layout: levanterLayout,
    data: mapCachePaths(data, levanterPath),
    singleCache: config.data === null,
    caches,
    numTrainSteps,
    tokenizerPath: levanterTokenizerPath(config.tokenizer),
    cpu: resources.device.kind === 'cpu',
    wandb: runtime.wandb,
    logDir,
  });
  await atomicWrite(prefixJoin(layout.referencePath, 'config.json'), `${JSON.stringify(referenceHfConfig(config.model), null, 2)}\n`);
  await atomicWrite(layout.configPath, toLevanterYaml(levanterConfig, [`Levanter TrainLmConfig for run "${runId}", written by @marin/pipeline's train step.`, 'Run: python -m levanter.main.train_lm --config_path <this file>']));

  const job = await runLevanterJob({
    what: 'train_lm',
    jobName: `train_lm-${runId}`,
    args: ['-m', 'levanter.main.train_lm', '--config_path', levanterLayout.configPath],
    resources,
    envVars: runtime.envVars,
    pythonEnv,
    signal: ctx.signal,
    configPath: layout.configPath,
    logPath: prefixJoin(layout.logsPath, `train_lm-${timestamp()}.log`),
    metricsPath: metricsPathOf(out),
    totalSteps: numTrainSteps,
    ...(ctx.progress === undefined ? {} : { progress: ctx.progress }),
  });
  // Levanter names its log file `<log_dir>/<run id>.log.log` (it passes "<id>.log" as the file's base name).
  return writeSummary(config, numTrainSteps, runId, job, logDir === levanterLayout.logsPath ? prefixJoin(layout.logsPath, `${runId}.log.log`) : null);
}

/** The step's data as a mixture: its own, or its one cache as a component of weight 1. */
function stepData(config: TrainStepConfig): MixtureData {
  if (config.data !== null) return config.data;
  return {
    components: { [config.component_name]: { cache_path: config.cache_path as string, tags: config.tags } },
    train_weights: { [config.component_name]: 1 },
    shuffle: null,
    permutation_type: null,
    mixture_block_size: null,
    stop_strategy: null,
  };
}

async function writeSummary(config: TrainStepConfig, numTrainSteps: number, runId: string, job: LevanterJobResult, levanterLogFile: string | null): Promise<TrainSummary> {
  const layout = trainLayout(config.output_path);
  // Levanter's own log file spans every attempt of the run (it appends); the job's output only this one.
  let lines: string[] = job.lines;
  if (levanterLogFile !== null && (await exists(levanterLogFile))) lines = (await readText(levanterLogFile)).split('\n');
  const records = parseJsonLoggerRecords(lines);
  const metrics = summarizeTrainRecords(records);
  if (metrics === null) {
    throw new PipelineError('PIPELINE_JOB_FAILED', `Levanter train_lm job "${job.jobId}" ended without logging a training loss; see its output in "${layout.logsPath}"`, {
      details: { jobId: job.jobId, configPath: layout.configPath, stage: 'summary' },
    });
  }
  const summary: TrainSummary = {
    run_id: runId,
    ...metrics,
    num_train_steps: numTrainSteps,
    resumed_from_step: resumedFromStep(job.lines),
    paths: {
      config: layout.configPath,
      checkpoints: layout.checkpointsPath,
      hf: layout.hfPath,
      latest_hf: await latestStepDir(layout.hfPath),
      log: levanterLogFile ?? layout.logsPath,
    },
  };
  const trackerFile = prefixJoin(config.output_path, 'tracker_metrics.jsonl');
  const trackerLine = trackerMetricsLine(records);
  // With W&B, Levanter's own replicate writes this file; without it, the same line comes from json_logger.
  if (trackerLine !== null && !(await exists(trackerFile))) await atomicWrite(trackerFile, trackerLine);
  await atomicWrite(layout.summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
  return summary;
}

function basename(url: string): string {
  const parts = url.replace(/\/+$/, '').split('/');
  return parts[parts.length - 1] ?? url;
}

function timestamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}
