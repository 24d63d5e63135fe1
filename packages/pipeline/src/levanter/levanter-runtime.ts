import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { PythonEnvSpec } from '@marin/fray';
import type { DeviceSpec } from '@marin/fray';
import { localPathOf, schemeOf } from '@marin/rigging';
import { levanterLockPath, tinyMcTaskPath, tokenizerLocation } from '../assets.js';
import { PipelineError } from '../errors.js';

/**
 * The Python environment Levanter jobs run in: a requirements lock (by default the package's checked-in
 * one), which the Fray backend (local, or the Iris worker) builds once per lock hash and activates for the job.
 *
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID when the lock cannot be read or is not a lock of exact pins
 */
export function levanterPythonEnv(lockPath: string | null = null): PythonEnvSpec {
  const path = lockPath ?? levanterLockPath();
  try {
    return PythonEnvSpec.fromLockFile(path, { pythonVersion: '3.11' });
  } catch (cause) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', `cannot use "${path}" as the Levanter Python lock; give a requirements lock of exact name==version pins`, {
      cause,
      details: { field: 'python_lock', path },
    });
  }
}

/**
 * Where Levanter should load a tokenizer from: the directory of a shipped tokenizer (`marin-tiny-bpe`), an
 * existing local directory made absolute (`file://` URLs become paths), or the value unchanged (a Hugging
 * Face repo id or a bucket URL, which need the hub or the bucket).
 */
export function levanterTokenizerPath(tokenizer: string): string {
  const location = tokenizerLocation(tokenizer);
  const scheme = schemeOf(location);
  if (scheme !== null && scheme !== 'file') return location;
  const local = localPathOf(location);
  return isDirectory(local) ? resolve(local) : location;
}

/** The JSONL file of a shipped multiple-choice eval task (`tiny_mc`), or `null` when none has that name. */
export function shippedEvalTaskPath(name: string): string | null {
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) return null;
  const path = join(dirname(tinyMcTaskPath()), `${name}.jsonl`);
  return existsSync(path) ? path : null;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** How a Levanter job reports and where it may reach the network. */
export interface LevanterRuntime {
  /** The job's extra environment variables. */
  envVars: Record<string, string>;
  /** W&B is used: `WANDB_API_KEY` is set and `WANDB_MODE` is not `disabled`/`offline`. */
  wandb: boolean;
  /** `HF_HUB_OFFLINE` is set: the hub, datasets and transformers are all told to stay offline. */
  offline: boolean;
}

const TRUE_VALUES = new Set(['1', 'true', 'yes', 'on']);

/**
 * The environment of a Levanter job: `JAX_PLATFORMS=cpu` on a CPU device (no accelerator probing),
 * `WANDB_MODE=disabled` unless a W&B key is present, and the three offline switches of the Hugging Face
 * libraries when `HF_HUB_OFFLINE` is set. The step's own `env_vars` win over all of these.
 *
 * @param sourceEnv the submitter's environment. @default process.env
 */
export function levanterRuntime(
  device: DeviceSpec,
  envVars: Readonly<Record<string, string>>,
  sourceEnv: Readonly<Record<string, string | undefined>> = process.env,
): LevanterRuntime {
  const lookup = (key: string): string | undefined => envVars[key] ?? sourceEnv[key];
  const mode = (lookup('WANDB_MODE') ?? '').toLowerCase();
  const wandb = (lookup('WANDB_API_KEY') ?? '') !== '' && mode !== 'disabled' && mode !== 'offline';
  const offline = TRUE_VALUES.has((lookup('HF_HUB_OFFLINE') ?? '').toLowerCase());
  const out: Record<string, string> = {};
  if (device.kind === 'cpu') out['JAX_PLATFORMS'] = 'cpu';
  if (!wandb) out['WANDB_MODE'] = 'disabled';
  if (offline) Object.assign(out, { HF_HUB_OFFLINE: '1', HF_DATASETS_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1' });
  // The submitter's MARIN_PREFIX is forwarded by Fray; Levanter puts its temporary directories under it.
  return { envVars: { ...out, ...envVars }, wandb, offline };
}

/** A path Levanter's fsspec understands: `file://` URLs become plain paths; other URLs are kept. */
export function levanterPath(url: string): string {
  return url.startsWith('file://') ? localPathOf(url) : url;
}

/** True when `url` is on this machine's disk (a plain path or `file://`). */
export function isLocalPath(url: string): boolean {
  const scheme = schemeOf(url);
  return scheme === null || scheme === 'file';
}
