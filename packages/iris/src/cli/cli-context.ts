import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createIrisClient } from '../client/iris-client.js';
import { IrisError } from '../errors.js';

/** Where the CLI writes what it prints; injectable so tests and embedders can capture it. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
}

/** The record a kept local cluster writes to `$IRIS_HOME/local-cluster.json`. */
export const LocalClusterRecordSchema = z.object({
  address: z.string().min(1),
  pid: z.number().int().positive(),
  stateDir: z.string().min(1),
  startedAtMs: z.number().int(),
  authToken: z.string().optional(),
  /** Started with `--bundles`: jobs ship a workspace bundle instead of running in place. */
  bundles: z.boolean().optional(),
});

/** A kept local cluster's record. */
export type LocalClusterRecord = z.output<typeof LocalClusterRecordSchema>;

/** `$IRIS_HOME`, default `~/.iris`. */
export function irisHome(env: NodeJS.ProcessEnv): string {
  return env['IRIS_HOME'] || join(homedir(), '.iris');
}

/** Path of the local cluster record. */
export function localClusterRecordPath(env: NodeJS.ProcessEnv): string {
  return join(irisHome(env), 'local-cluster.json');
}

/** Reads the local cluster record, or undefined when absent or unreadable. */
export function readLocalClusterRecord(env: NodeJS.ProcessEnv): LocalClusterRecord | undefined {
  const path = localClusterRecordPath(env);
  if (!existsSync(path)) return undefined;
  try {
    const parsed = LocalClusterRecordSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** True when a controller answers `GetClusterStatus` at `address` within `timeoutMs`. */
export async function controllerAnswers(address: string, token: string | undefined, timeoutMs = 2000): Promise<boolean> {
  const client = createIrisClient({ address, token, deadlineMs: timeoutMs });
  try {
    await client.clusterStatus();
    return true;
  } catch {
    return false;
  } finally {
    await client.close();
  }
}

/** How the CLI found its controller. */
export interface ResolvedController {
  readonly address: string;
  readonly token: string | undefined;
  /** `flag`, `env`, or `local` (the recorded local cluster, which shares this workspace). */
  readonly source: 'flag' | 'env' | 'local';
  /** True for a recorded local cluster that runs jobs in place (no `--bundles`). */
  readonly inPlace: boolean;
}

/**
 * Controller resolution: `--controller` → `IRIS_CONTROLLER_ADDRESS` → the recorded local
 * cluster if it answers → undefined (only `job run` may then start an embedded cluster).
 */
export async function resolveController(flag: string | undefined, env: NodeJS.ProcessEnv): Promise<ResolvedController | undefined> {
  const token = env['IRIS_AUTH_TOKEN'] || undefined;
  if (flag) return { address: flag, token, source: 'flag', inPlace: false };
  if (env['IRIS_CONTROLLER_ADDRESS']) return { address: env['IRIS_CONTROLLER_ADDRESS'], token, source: 'env', inPlace: false };
  const record = readLocalClusterRecord(env);
  if (record && (await controllerAnswers(record.address, record.authToken ?? token))) {
    return { address: record.address, token: record.authToken ?? token, source: 'local', inPlace: record.bundles !== true };
  }
  return undefined;
}

/**
 * Like {@link resolveController} but required.
 * @throws {IrisError} IRIS_UNAVAILABLE "no controller configured; start one with `iris cluster start --local`".
 */
export async function requireController(flag: string | undefined, env: NodeJS.ProcessEnv): Promise<ResolvedController> {
  const c = await resolveController(flag, env);
  if (!c) throw new IrisError('IRIS_UNAVAILABLE', 'no controller configured; start one with `iris cluster start --local`');
  return c;
}

/** Resolves when `signal` aborts (SIGINT/SIGTERM for the CLI's own signal). */
export function untilSignal(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
