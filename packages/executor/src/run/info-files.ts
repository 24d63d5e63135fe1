import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { basename, resolve } from 'node:path';
import { promisify } from 'node:util';
import { filesystemFor, pyJsonDumps } from '@marin/rigging';
import type { ExecutorStep } from '../dag/executor-step.js';
import type { ExecutorLogger } from '../logger.js';
import type { VersionGraph } from '../versioning/version-graph.js';

/** One step's `.executor_info`, fields in Marin's order. */
export interface StepInfo {
  name: string;
  fn_name: string;
  config: unknown;
  override_output_path: string | null;
  version: unknown;
  dependencies: string[];
  output_path: string;
}

/** The experiment JSON, fields in Marin's order (the description is not written, as in Marin). */
export interface ExperimentInfo {
  worker_id: string;
  git_commit: string | null;
  caller_path: string;
  created_date: string;
  user: string | null;
  prefix: string;
  steps: StepInfo[];
}

/**
 * `fn_name` of a step: the inner function's name for a remote callable, `"None"` for no function,
 * else `fn.name` or `"<anonymous>"`. Never an address, so the experiment file name is stable.
 */
export function fnNameOf(fn: unknown): string {
  if (fn === null || fn === undefined) return 'None';
  if (typeof fn === 'object' && typeof (fn as { fn?: unknown }).fn === 'function') {
    return fnNameOf((fn as { fn: unknown }).fn);
  }
  if (typeof fn === 'function') return fn.name === '' ? '<anonymous>' : fn.name;
  return String(fn);
}

/** Builds the `.executor_info` object of `step` from a computed version graph. */
export function buildStepInfo(graph: VersionGraph, step: ExecutorStep): StepInfo {
  const deps = graph.dependencies.get(step) ?? [];
  return {
    name: step.name,
    fn_name: fnNameOf(step.fn),
    config: graph.infoConfigs.get(step) ?? null,
    override_output_path: step.overrideOutputPath ?? null,
    version: graph.versions.get(step),
    dependencies: deps.map((d) => graph.outputPaths.get(d)!),
    output_path: graph.outputPaths.get(step)!,
  };
}

/** Serializes an info object the way Marin writes it: indent mode, lenient, one trailing newline. */
export function infoFileText(info: unknown, logger?: ExecutorLogger): string {
  return `${pyJsonDumps(info, { indent: 2, strict: false, onWarning: (m) => logger?.warn(m) })}\n`;
}

/**
 * `caller` of the experiment file name: the entry script's basename without its extension
 * (`.ts`, `.mts`, `.cts`, `.js`, `.mjs`, `.cjs`, `.py`).
 */
export function callerName(entry: string | undefined): string {
  const base = basename(entry ?? 'unknown');
  return base.replace(/\.(m?ts|cts|m?js|cjs|py)$/, '');
}

/** Local time as an ISO string without offset, with microseconds: `2026-11-21T20:01:02.123000`. */
export function localIsoMicros(d: Date): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return (
    `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:` +
    `${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}000`
  );
}

/** `md5(pyJsonDumps(stepInfos, sortKeys))[0..6]`: the hash in the experiment file name. */
export function experimentHash(stepInfos: readonly StepInfo[]): string {
  const text = pyJsonDumps(stepInfos, { sortKeys: true, strict: false, onWarning: () => {} });
  return createHash('md5').update(text, 'utf8').digest('hex').slice(0, 6);
}

/** `<base>/<caller>-<hash6>.json`. */
export function experimentInfoPath(base: string, stepInfos: readonly StepInfo[], entry = process.argv[1]): string {
  const sep = base.endsWith('/') ? '' : '/';
  return `${base}${sep}${callerName(entry)}-${experimentHash(stepInfos)}.json`;
}

async function gitCommit(): Promise<string | null> {
  if (!existsSync('.git')) return null;
  try {
    const { stdout } = await promisify(execFile)('git', ['rev-parse', 'HEAD'], { timeout: 5000 });
    return stdout.trim() || null;
  } catch {
    return null;
  }
}

function osUser(): string | null {
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

/** Builds the experiment JSON for the current process and entry script. */
export async function buildExperimentInfo(prefix: string, steps: StepInfo[], entry = process.argv[1]): Promise<ExperimentInfo> {
  return {
    worker_id: `${hostname()}-${process.pid}`,
    git_commit: await gitCommit(),
    caller_path: resolve(entry ?? 'unknown'),
    created_date: localIsoMicros(new Date()),
    user: osUser(),
    prefix,
    steps,
  };
}

/** Writes `text` to `url` through rigging (atomic replace, parents created). */
export async function writeTextFile(url: string, text: string): Promise<void> {
  await filesystemFor(url).writeText(url, text);
}
