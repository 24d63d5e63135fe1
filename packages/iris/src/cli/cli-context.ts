import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createIrisClient } from '../client/iris-client.js';
import type { IrisClient } from '../client/iris-client.js';
import { IrisError } from '../errors.js';
import { explainControllerError } from './cli-errors.js';
import { storedKey } from './credentials.js';

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
  const client = createIrisClient({ address, token });
  try {
    return await answers(client, timeoutMs);
  } finally {
    await client.close();
  }
}

async function answers(client: IrisClient, timeoutMs: number): Promise<boolean> {
  try {
    await client.clusterStatus({ timeoutMs });
    return true;
  } catch {
    return false;
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

/** A resolved controller with an open client; closing it closes the client. */
export interface ControllerConnection extends AsyncDisposable {
  readonly controller: ResolvedController;
  readonly client: IrisClient;
  /** Runs `fn` with the client; a transport failure comes back as one readable line naming the address. */
  use<T>(fn: (client: IrisClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

function connection(controller: ResolvedController, client: IrisClient): ControllerConnection {
  const close = () => client.close();
  const use = async <T>(fn: (c: IrisClient) => Promise<T>): Promise<T> => {
    try {
      return await fn(client);
    } catch (e) {
      throw explainControllerError(e, controller.address);
    }
  };
  return { controller, client, use, close, [Symbol.asyncDispose]: close };
}

/**
 * Controller resolution: `--controller` → `IRIS_CONTROLLER_ADDRESS` → the recorded local
 * cluster if it answers → undefined (only `job run` may then start an embedded cluster). The client
 * that checked the local cluster is the one returned, so a command pays for one connection.
 */
export async function connectController(flag: string | undefined, env: NodeJS.ProcessEnv): Promise<ControllerConnection | undefined> {
  if (flag) {
    const token = credentialFor(env, flag);
    return connection({ address: flag, token, source: 'flag', inPlace: false }, createIrisClient({ address: flag, token }));
  }
  const fromEnv = env['IRIS_CONTROLLER_ADDRESS'];
  if (fromEnv) {
    const token = credentialFor(env, fromEnv);
    return connection({ address: fromEnv, token, source: 'env', inPlace: false }, createIrisClient({ address: fromEnv, token }));
  }
  const record = readLocalClusterRecord(env);
  if (!record) return undefined;
  const recordToken = credentialFor(env, record.address, record.authToken);
  const client = createIrisClient({ address: record.address, token: recordToken });
  if (!(await answers(client, 2000))) {
    await client.close();
    return undefined;
  }
  return connection({ address: record.address, token: recordToken, source: 'local', inPlace: record.bundles !== true }, client);
}

/**
 * The credential the CLI sends to `address`: inside a task its own `IRIS_AUTH_TOKEN` (the job's
 * token); else `IRIS_API_KEY`, the key `iris login` stored for the address, the token a local
 * cluster recorded, and last `IRIS_AUTH_TOKEN`.
 */
export function credentialFor(env: NodeJS.ProcessEnv, address: string, recordToken?: string): string | undefined {
  const shared = env['IRIS_AUTH_TOKEN'] || undefined;
  if (env['IRIS_TASK_ID'] && shared) return shared;
  return env['IRIS_API_KEY'] || storedKey(env, address) || recordToken || shared;
}

/** Like {@link connectController}, without keeping the client. */
export async function resolveController(flag: string | undefined, env: NodeJS.ProcessEnv): Promise<ResolvedController | undefined> {
  const c = await connectController(flag, env);
  await c?.close();
  return c?.controller;
}

const NO_CONTROLLER = 'no controller configured; start one with `iris cluster start --local`';

/**
 * Like {@link resolveController} but required.
 * @throws {IrisError} IRIS_UNAVAILABLE "no controller configured; start one with `iris cluster start --local`".
 */
export async function requireController(flag: string | undefined, env: NodeJS.ProcessEnv): Promise<ResolvedController> {
  const c = await resolveController(flag, env);
  if (!c) throw new IrisError('IRIS_UNAVAILABLE', NO_CONTROLLER);
  return c;
}

/**
 * Like {@link connectController} but required.
 * @throws {IrisError} IRIS_UNAVAILABLE "no controller configured; start one with `iris cluster start --local`".
 */
export async function requireConnection(flag: string | undefined, env: NodeJS.ProcessEnv): Promise<ControllerConnection> {
  const c = await connectController(flag, env);
  if (!c) throw new IrisError('IRIS_UNAVAILABLE', NO_CONTROLLER);
  return c;
}

/** Resolves when `signal` aborts (SIGINT/SIGTERM for the CLI's own signal). */
export function untilSignal(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
