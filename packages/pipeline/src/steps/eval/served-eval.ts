import { ResourceConfig } from '@marin/fray';
import type { ResourceOptions } from '@marin/fray';
import type { StepContext } from '@marin/executor';
import { atomicWrite, exists, prefixJoin, readText } from '@marin/rigging';
import { openTokenCache } from '../../cache/token-cache.js';
import type { TokenCache } from '../../cache/token-cache.js';
import { PipelineError } from '../../errors.js';
import { meaningfulTail } from '../../levanter/levanter-output.js';
import { isLocalPath, levanterPath, levanterPythonEnv, levanterRuntime } from '../../levanter/levanter-runtime.js';
import { toLevanterYaml } from '../../levanter/levanter-yaml.js';
import type { LevanterConfigValue } from '../../levanter/levanter-yaml.js';
import { levanterModelSection } from '../train/levanter-model-config.js';
import { evalModelName, resolveHfModel } from './eval.js';
import { buildEvalResults } from './eval-results.js';
import type { EvalResults } from './eval-results.js';
import { formatEvalSummary } from './eval-summary.js';
import { parseServedEvalStepConfig } from './served-eval-config.js';
import type { ServedEvalStepConfig } from './served-eval-config.js';
import { ServedLossAccumulator, decodeScoredBatch, encodeSequences } from './served-loss.js';
import type { ScoredBatch, ServedLossTotals } from './served-loss.js';
import { startServedModel } from './served-model.js';
import type { ServedModel } from './served-model.js';

/** `served_eval.json`: what was served, what was streamed to it, and how fast. */
export interface ServedEvalReport {
  model_path: string;
  job_id: string;
  address: string;
  pid: number;
  batch_size: number;
  seq_len: number;
  sequences: number;
  batches: number;
  /** Tokens scored (each sequence's first token is context only). */
  tokens: number;
  bytes: number;
  /** Documents of the validation split the scored sequences cover (`n-samples.validation.effective`). */
  docs: number;
  loss: number;
  bpb: number;
  /** Total loss over total bytes in bits (independent of batching); `bpb` is Levanter's per-batch mean. */
  pooled_bpb: number;
  /** From submitting the actor's job to its ready line (environment, model load, compile). */
  ready_seconds: number;
  /** From the first batch sent to the last reply. */
  stream_seconds: number;
  /** Scored tokens per second of streaming. */
  tokens_per_second: number;
}

/** Injection points of {@link evaluateServed}. */
export interface EvaluateServedOptions {
  /** Receives the one-screen summary once `results.json` is written. @default process.stdout */
  write?: (text: string) => void;
  /** Called once the actor serves (its job, address and pid), before any batch is sent. @default none */
  onServing?: (served: Pick<ServedModel, 'jobId' | 'address' | 'pid'>) => void;
}

/**
 * The served eval step: serves the model's newest Hugging Face export as a Fray actor (`served_lm.py`, a Fray job in
 * the Levanter environment), streams the token cache's validation split to it in Levanter's eval batches
 * (`loglikelihood`, token ids as binary blobs), and writes the validation loss and bits per byte to `results.json`
 * (the eval step's format) and the details to `served_eval.json`. The actor's job is terminated at the end, on
 * failure and on interruption alike.
 *
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID for a bad config; PIPELINE_INPUT_NOT_FOUND when no export is
 *   found under `model_path`; PIPELINE_CACHE_INVALID for a missing or unfinished validation split;
 *   PIPELINE_EMPTY_DATASET when the split holds less than one sequence; PIPELINE_JOB_FAILED when the actor does not
 *   start or serve (`details.stage`: `submit`, `serve`, `ready`, `call`, `interrupted`; for `call`,
 *   `details.actorCode` is the Fray code of the failed call)
 */
export async function evaluateServed(rawConfig: unknown, ctx: Pick<StepContext, 'signal' | 'progress'>, options: EvaluateServedOptions = {}): Promise<EvalResults> {
  const config = parseServedEvalStepConfig(rawConfig);
  const modelDir = await resolveHfModel(config.model_path, config.discover_latest_checkpoint);
  const cache = await openTokenCache(config.cache_path, 'validation');
  const seqLen = config.model.max_seq_len;
  const available = Math.floor(cache.numTokens / seqLen);
  const sequences = config.max_eval_batches === null ? available : Math.min(available, config.max_eval_batches * config.eval_batch_size);
  if (sequences === 0) {
    throw new PipelineError('PIPELINE_EMPTY_DATASET', `the validation split "${cache.url}" holds ${cache.numTokens} tokens, less than one sequence of ${seqLen}`, {
      details: { path: cache.url, tokens: cache.numTokens, seqLen },
    });
  }
  const resources = config.resources === null ? new ResourceConfig() : new ResourceConfig(config.resources as ResourceOptions);
  const out = config.evaluation_path;
  const configPath = prefixJoin(out, 'served_lm_config.yaml');
  await atomicWrite(configPath, toLevanterYaml(actorConfig(config, modelDir, resources), ["served_lm.py's config, written by @marin/pipeline's served eval step."]));
  const logPath = prefixJoin(out, 'logs/served_lm.log');
  ctx.progress?.note(`served model output: ${logPath}`);

  const started = Date.now();
  const served = await startServedModel({
    jobName: `served_lm-${evalModelName(modelDir)}`,
    configPath,
    logPath,
    resources,
    envVars: levanterRuntime(resources.device, config.env_vars).envVars,
    pythonEnv: levanterPythonEnv(config.python_lock),
    readyTimeoutMs: config.ready_timeout_ms,
    signal: ctx.signal,
  });
  let totals: ServedLossTotals;
  let streamSeconds: number;
  const readySeconds = (Date.now() - started) / 1000;
  try {
    options.onServing?.({ jobId: served.jobId, address: served.address, pid: served.pid });
    const streamStart = Date.now();
    totals = await streamValidation(served, cache, config, sequences, ctx, logPath);
    streamSeconds = (Date.now() - streamStart) / 1000;
  } finally {
    await served.close();
  }
  const docs = await documentsCovered(cache, sequences * seqLen);

  const validation: Record<string, number> = { 'eval/loss': totals.loss, 'eval/bpb': totals.bpb };
  for (const tag of [config.component_name, ...config.tags]) {
    validation[`eval/${tag}/loss`] = totals.loss;
    validation[`eval/${tag}/bpb`] = totals.bpb;
  }
  const results = buildEvalResults({ harness: null, validation, modelName: evalModelName(modelDir), modelPath: modelDir, limit: null });
  results.config.model = 'served_lm';
  results['n-samples']['validation'] = { original: cache.numRows, effective: docs };
  const report: ServedEvalReport = {
    model_path: modelDir,
    job_id: served.jobId,
    address: served.address,
    pid: served.pid,
    batch_size: config.eval_batch_size,
    seq_len: seqLen,
    sequences: totals.sequences,
    batches: totals.batches,
    tokens: totals.tokens,
    bytes: totals.bytes,
    docs,
    loss: totals.loss,
    bpb: totals.bpb,
    pooled_bpb: totals.pooledBpb,
    ready_seconds: readySeconds,
    stream_seconds: streamSeconds,
    tokens_per_second: totals.tokens / Math.max(streamSeconds, 1e-3),
  };
  await atomicWrite(prefixJoin(out, 'served_eval.json'), `${JSON.stringify(report, null, 2)}\n`);
  await atomicWrite(prefixJoin(out, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const summary = formatEvalSummary(results, `served eval of ${results.model_name} (${prefixJoin(out, 'results.json')})`);
  await atomicWrite(prefixJoin(out, 'summary.txt'), summary);
  (options.write ?? ((text: string) => void process.stdout.write(text)))(summary);
  return results;
}

/** `served_lm.py`'s YAML: the export, Levanter's model and trainer sections as `eval_lm` gets them, the batch shape. */
function actorConfig(config: ServedEvalStepConfig, modelDir: string, resources: ResourceConfig): Record<string, LevanterConfigValue> {
  const model = levanterPath(modelDir);
  const out = config.evaluation_path;
  const trainer: Record<string, LevanterConfigValue | undefined> = {
    id: 'served_lm',
    mp: 'p=f32,c=f32',
    tracker: { type: 'noop' },
    log_dir: isLocalPath(out) ? levanterPath(prefixJoin(out, 'logs')) : 'logs',
    require_accelerator: resources.device.kind === 'cpu' ? false : undefined,
    train_batch_size: config.eval_batch_size,
    per_device_eval_parallelism: config.eval_batch_size,
    jax_compilation_cache_dir: config.compilation_cache_dir ?? undefined,
  };
  return {
    hf_checkpoint: model,
    model: levanterModelSection(config.model, model, model) as LevanterConfigValue,
    trainer: trainer as LevanterConfigValue,
    batch_size: config.eval_batch_size,
    seq_len: config.model.max_seq_len,
  };
}

/**
 * Sends sequences `[0, count)` of the split (windows of `seq_len` tokens of the concatenated documents, as
 * Levanter's `TokenSeqDataset` cuts them) in batches of `eval_batch_size`, at most `max_in_flight` calls at once,
 * and adds the replies up in order.
 */
async function streamValidation(
  served: ServedModel,
  cache: TokenCache,
  config: ServedEvalStepConfig,
  count: number,
  ctx: Pick<StepContext, 'signal' | 'progress'>,
  logPath: string,
): Promise<ServedLossTotals> {
  const seqLen = config.model.max_seq_len;
  const batchSize = config.eval_batch_size;
  const batches = Math.ceil(count / batchSize);
  const accumulator = new ServedLossAccumulator();
  const pending: Promise<ScoredBatch>[] = [];
  const call = async (first: number, n: number): Promise<ScoredBatch> => {
    const window = await cache.tokens(first * seqLen, (first + n) * seqLen);
    const rows = Array.from({ length: n }, (_, i) => window.subarray(i * seqLen, (i + 1) * seqLen));
    let reply: unknown;
    try {
      reply = await served.handle.callWithOptions('loglikelihood', [encodeSequences(rows)], { timeoutMs: config.call_timeout_ms, signal: ctx.signal });
    } catch (cause) {
      throw await callFailure(cause, served, logPath, ctx.signal.aborted);
    }
    const scored = decodeScoredBatch(reply, n);
    if (scored === null) {
      throw new PipelineError('PIPELINE_JOB_FAILED', `the served model answered loglikelihood with a malformed reply`, {
        details: { stage: 'call', what: 'serve', jobId: served.jobId, logPath },
      });
    }
    return scored;
  };
  for (let b = 0; b < batches; b++) {
    const first = b * batchSize;
    const sent = call(first, Math.min(batchSize, count - first));
    sent.catch(() => undefined); // awaited below, in order; this only keeps an early failure from going unhandled
    pending.push(sent);
    if (pending.length >= config.max_in_flight) accumulator.add(await (pending.shift() as Promise<ScoredBatch>));
    ctx.progress?.status(`served eval: batch ${b + 1}/${batches}`);
  }
  while (pending.length > 0) accumulator.add(await (pending.shift() as Promise<ScoredBatch>));
  return accumulator.totals();
}

async function callFailure(cause: unknown, served: ServedModel, logPath: string, interrupted: boolean): Promise<PipelineError> {
  const actorCode = typeof cause === 'object' && cause !== null && typeof (cause as { code?: unknown }).code === 'string' ? (cause as { code: string }).code : undefined;
  const details = { what: 'serve', jobId: served.jobId, logPath, actorCode };
  if (interrupted) {
    return new PipelineError('PIPELINE_JOB_FAILED', `the served eval was interrupted; the served model job "${served.jobId}" is terminated`, {
      cause,
      details: { ...details, stage: 'interrupted' },
    });
  }
  const lines = (await exists(logPath).catch(() => false)) ? (await readText(logPath).catch(() => '')).split('\n') : [];
  const message = cause instanceof Error ? cause.message : String(cause);
  return new PipelineError('PIPELINE_JOB_FAILED', `a loglikelihood call to the served model failed (${actorCode ?? 'unknown'}): ${message} (output kept in "${logPath}")`, {
    cause,
    details: { ...details, stage: 'call', outputTail: meaningfulTail(lines, { maxLines: 20 }) },
  });
}

/** How many documents (rows) the first `tokens` tokens of the split touch. */
async function documentsCovered(cache: TokenCache, tokens: number): Promise<number> {
  let covered = 0;
  let docs = 0;
  while (docs < cache.numRows && covered < tokens) {
    covered += (await cache.row(docs)).length;
    docs += 1;
  }
  return docs;
}
