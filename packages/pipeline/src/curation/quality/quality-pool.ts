import { relative } from 'node:path';
import { PythonEnvSpec, createLocalActorBackend, findWorkspaceRoot } from '@marin/fray';
import type { ActorBackend, ActorGroup, FrayLogger, PythonActorEntry } from '@marin/fray';
import { FrayError } from '@marin/fray';
import { PipelineError } from '../../errors.js';
import { readParquetRecords } from '../../formats/parquet-records.js';
import { curationLockPath, curationScriptPath } from '../curation-assets.js';

/**
 * The quality stage as an actor pool: `size` Python actors (`fasttext_actor.FasttextScorer` in the curation
 * environment), each loading the model once, score batches of texts; never part of the output's version.
 */
export interface QualityActorPoolOptions {
  /** Actors in the pool. */
  size: number;
  /** Texts per call. @default 512 */
  batchSize?: number;
  /** Calls in flight per actor (all parts together). @default 2 */
  inFlightPerActor?: number;
  /**
   * Where the actors run. The model file is passed by path, so the actors must see this machine's files (the
   * local backend, or an in-place cluster on this machine). @default a local actor backend, closed with the stage
   */
  backend?: ActorBackend;
  /** How many times a batch whose actor died or dropped is sent again to a live member (scoring is pure). @default 2 */
  maxBatchRetries?: number;
  /** Deadline of one batch call. @default 300000 */
  callTimeoutMs?: number;
  /** How long the pool may take to start (the model loads in each actor). @default 120000 */
  readyTimeoutMs?: number;
  /** Called after each scored batch (progress; tests use it to kill an actor mid-stage). */
  onBatch?: (info: { group: ActorGroup; part: string; documents: number }) => void;
}

/** The Python entry of one pooled scorer. */
export function fasttextActorEntry(): PythonActorEntry {
  const workspace = findWorkspaceRoot();
  return {
    python: { module: 'fasttext_actor', className: 'FasttextScorer' },
    env: PythonEnvSpec.fromLockFile(curationLockPath()),
    pythonPath: [relative(workspace, curationScriptPath(''))],
  };
}

/** Checks pool options. @throws {PipelineError} PIPELINE_CONFIG_INVALID */
export function checkQualityPoolOptions(pool: QualityActorPoolOptions): void {
  const positive = (name: string, v: number | undefined, allowZero = false): void => {
    if (v === undefined) return;
    if (!Number.isInteger(v) || v < (allowZero ? 0 : 1)) {
      throw new PipelineError('PIPELINE_CONFIG_INVALID', `quality actor pool: ${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got ${String(v)}`, { details: { field: name } });
    }
  };
  positive('size', pool.size);
  positive('batchSize', pool.batchSize);
  positive('inFlightPerActor', pool.inFlightPerActor);
  positive('maxBatchRetries', pool.maxBatchRetries, true);
}

/** A counting semaphore bounding the calls in flight over every part. */
class Permits {
  private waiting: (() => void)[] = [];
  constructor(private free: number) {}
  async take(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  give(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.free += 1;
  }
}

/** A started pool: score the texts of parts through it, then close it. */
export interface QualityPool extends AsyncDisposable {
  /** Scores one source part's documents, yielding `{ id, quality_score }` in the part's order. */
  scorePart(sourceUrl: string, textField: string, signal: AbortSignal): AsyncGenerator<{ id: string; quality_score: number }>;
  close(): Promise<void>;
}

const RETRYABLE_CALL = new Set(['FRAY_ACTOR_DEAD', 'FRAY_ACTOR_UNAVAILABLE']);

/**
 * Starts `pool.size` scorers on the backend (all or nothing), each built with `(modelPath, label)`.
 * @throws {PipelineError} PIPELINE_JOB_FAILED (`details.stage: 'actor-pool'`) when the pool does not start
 */
export async function startQualityPool(pool: QualityActorPoolOptions, modelPath: string, label: string, logger?: FrayLogger): Promise<QualityPool> {
  checkQualityPoolOptions(pool);
  const backend = pool.backend ?? createLocalActorBackend(logger === undefined ? {} : { logger });
  const ownsBackend = pool.backend === undefined;
  let group: ActorGroup;
  try {
    group = await backend.createActorGroup(fasttextActorEntry(), pool.size, { args: [modelPath, label], readyTimeoutMs: pool.readyTimeoutMs ?? 120_000 });
  } catch (cause) {
    if (ownsBackend) await backend.close();
    throw new PipelineError('PIPELINE_JOB_FAILED', `the quality actor pool did not start: ${FrayError.from(cause).message}`, { cause, details: { stage: 'actor-pool' } });
  }
  const batchSize = pool.batchSize ?? 512;
  const permits = new Permits(pool.size * (pool.inFlightPerActor ?? 2));
  const maxRetries = pool.maxBatchRetries ?? 2;
  const timeoutMs = pool.callTimeoutMs ?? 300_000;

  const scoreBatch = async (texts: string[], part: string, signal: AbortSignal): Promise<number[]> => {
    await permits.take();
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          return await group.callWithOptions<number[]>('score', [texts], { timeoutMs, signal });
        } catch (e) {
          const err = FrayError.from(e);
          signal.throwIfAborted();
          if (RETRYABLE_CALL.has(err.code) && attempt < maxRetries && group.liveCount > 0) continue;
          throw new PipelineError('PIPELINE_JOB_FAILED', `quality scoring of ${part} failed in the actor pool: ${err.message}`, {
            cause: err,
            details: { stage: 'actor-pool', part, frayCode: err.code, liveActors: group.liveCount },
          });
        }
      }
    } finally {
      permits.give();
    }
  };

  async function* scorePart(sourceUrl: string, textField: string, signal: AbortSignal): AsyncGenerator<{ id: string; quality_score: number }> {
    const part = sourceUrl.slice(sourceUrl.lastIndexOf('/') + 1);
    // Batches in flight for this part, oldest first: results are yielded in the part's order.
    const queue: { ids: string[]; scores: Promise<number[]> }[] = [];
    const maxQueued = pool.size * (pool.inFlightPerActor ?? 2);
    let documents = 0;
    const send = (ids: string[], texts: string[]): void => {
      const scores = scoreBatch(texts, part, signal);
      scores.catch(() => undefined); // awaited in order below; a failure surfaces there
      queue.push({ ids, scores });
    };
    async function* drain(keep: number): AsyncGenerator<{ id: string; quality_score: number }> {
      while (queue.length > keep) {
        const { ids, scores } = queue.shift() as (typeof queue)[number];
        const values = await scores;
        if (values.length !== ids.length) {
          throw new PipelineError('PIPELINE_JOB_FAILED', `a pooled scorer returned ${values.length} scores for ${ids.length} texts`, { details: { stage: 'actor-pool', part } });
        }
        documents += ids.length;
        for (let i = 0; i < ids.length; i++) yield { id: ids[i] as string, quality_score: values[i] as number };
        pool.onBatch?.({ group, part, documents });
      }
    }
    let ids: string[] = [];
    let texts: string[] = [];
    for await (const r of readParquetRecords(sourceUrl, { columns: ['id', textField], signal })) {
      const id = r['id'] as string;
      const text = r[textField] ?? '';
      if (typeof text !== 'string') {
        throw new PipelineError('PIPELINE_INPUT_INVALID', `document "${id}" has a ${typeof text} text; quality scoring needs string texts`, { details: { id } });
      }
      ids.push(id);
      texts.push(text);
      if (ids.length >= batchSize) {
        send(ids, texts);
        ids = [];
        texts = [];
        yield* drain(maxQueued);
      }
    }
    if (ids.length > 0) send(ids, texts);
    yield* drain(0);
  }

  const close = async (): Promise<void> => {
    await group.close();
    if (ownsBackend) await backend.close();
  };
  return { scorePart, close, [Symbol.asyncDispose]: close };
}
