import { pythonEnvCacheDir } from '@marin/rigging';
import { z } from 'zod';
import type { Client, JobHandle, SubmitOptions } from '../../client/client.js';
import { stderrLogger } from '../../client/logger.js';
import type { FrayLogger } from '../../client/logger.js';
import { JobAlreadyExists } from '../../client/job-already-exists.js';
import { FrayError } from '../../errors.js';
import type { JobRequest } from '../../request/job-request.js';
import { resolveJobRequest } from '../../request/job-request.js';
import { randomHex8 } from '../../request/job-name.js';
import { readDependencyGroups, resolveDependencyGroups } from '../../request/dependency-groups.js';
import { findWorkspaceRoot } from '../../runner/workspace-root.js';
import { LocalJob } from './local-job.js';

const LocalClientOptionsSchema = z.strictObject({
  maxConcurrency: z.number().int().positive().default(8),
  callables: z.enum(['in-process', 'reentry']).default('in-process'),
  killGraceMs: z.number().int().nonnegative().default(5000),
  tailLines: z.number().int().positive().default(1000),
  cwd: z.string().min(1).optional(),
  pythonEnvCacheDir: z.string().min(1).optional(),
  logger: z.custom<FrayLogger>((v) => typeof v === 'object' && v !== null && 'info' in v && 'warn' in v).optional(),
  contextClient: z.custom<Client>((v) => typeof v === 'object' && v !== null && 'submit' in v).optional(),
});

/** Options of {@link createLocalClient}. */
export interface LocalClientOptions {
  /** Jobs running at once; the rest stay `pending` in FIFO order. @default 8 */
  maxConcurrency?: number;
  /**
   * `in-process` runs callables in this process; `reentry` runs their `reentry` entrypoint in a subprocess,
   * which exercises the remote path on one machine. @default 'in-process'
   */
  callables?: 'in-process' | 'reentry';
  /** Time between SIGTERM and SIGKILL when terminating a binary job. @default 5000 */
  killGraceMs?: number;
  /** Output lines kept per job for `logs()`. @default 1000 */
  tailLines?: number;
  /** Working directory of binary jobs; module paths resolve against its git top level. @default process.cwd() */
  cwd?: string;
  /**
   * Where the Python environments of jobs with a `pythonEnv` are built, one per lock hash, and reused.
   * @default rigging's `pythonEnvCacheDir()` (`$MARIN_PYTHON_ENV_CACHE` or `~/.cache/marin/python-envs`)
   */
  pythonEnvCacheDir?: string;
  /** Receives each output line (prefixed with the job id) and warnings. @default stderr */
  logger?: FrayLogger;
  /** What `currentClient()` returns inside in-process jobs; wrappers pass themselves. @default this client */
  contextClient?: Client;
}

/** The local backend: a bounded pool in this process; binaries run as their own process groups. */
export interface LocalClient extends Client {
  /** Always `'local'`. */
  readonly backend: 'local';
}

/**
 * Creates a local backend for development and tests: jobs run in this process (callables, modules) or as
 * subprocesses (binaries), at most `maxConcurrency` at once. Resources and dependency groups are not enforced.
 *
 * @throws {FrayError} FRAY_INVALID_ARGUMENT for a bad option
 */
export function createLocalClient(options: LocalClientOptions = {}): LocalClient {
  const parsed = LocalClientOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new FrayError('FRAY_INVALID_ARGUMENT', `invalid local client option ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'bad value'}`, {
      cause: parsed.error,
      details: { issues: parsed.error.issues },
    });
  }
  const config = parsed.data;
  const logger = config.logger ?? stderrLogger;
  const cwd = config.cwd ?? process.cwd();
  let workspaceRoot: string | undefined;
  // Resolved on first need (module entrypoints, dependency groups): it runs git.
  const workspace = (): string => (workspaceRoot ??= findWorkspaceRoot(cwd));
  const jobs = new Map<string, LocalJob>();
  const queue: LocalJob[] = [];
  let running = 0;
  let closed = false;
  let warnedAccelerator = false;

  const pump = (): void => {
    while (running < config.maxConcurrency && queue.length > 0) {
      const job = queue.shift() as LocalJob;
      running += 1;
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        running -= 1;
        pump();
      };
      // A terminated in-process job frees its slot at once; its late result is ignored.
      void job.finished.then(release);
      void job.run().then(release);
    }
  };

  const client: LocalClient = {
    backend: 'local',

    async submit(request: JobRequest, submitOptions: SubmitOptions = {}): Promise<JobHandle> {
      if (closed) throw new FrayError('FRAY_BACKEND_UNAVAILABLE', 'local client is shut down', { retryable: false });
      const resolved = resolveJobRequest(request);
      const existing = jobs.get(resolved.name);
      if (existing !== undefined) {
        if (submitOptions.adoptExisting ?? true) return existing;
        throw new JobAlreadyExists(resolved.name, existing);
      }
      const ep = resolved.entrypoint;
      if (ep.kind === 'callable' && config.callables === 'reentry' && ep.reentry === undefined) {
        throw new FrayError('FRAY_ENTRYPOINT_NOT_PORTABLE', `job "${resolved.name}" is a callable without a reentry entrypoint; remote runs need one`, {
          details: { name: resolved.name },
        });
      }
      if (resolved.resources.device.kind !== 'cpu' && !warnedAccelerator) {
        warnedAccelerator = true;
        logger.warn(`the local backend ignores accelerator requests (job "${resolved.name}" asked for ${resolved.resources.device.kind})`);
      }
      const groups = resolved.environment.dependencyGroups;
      if (groups !== undefined && groups.length > 0) {
        // Nothing is installed locally, but a typo in a group name should fail here as it would on a cluster.
        resolveDependencyGroups(groups, resolved.resources.device, readDependencyGroups(resolved.environment.workspace ?? workspace()));
      }
      const job = new LocalJob(`local-${resolved.name}-${randomHex8()}`, resolved, {
        client: config.contextClient ?? client,
        logger,
        callables: config.callables,
        killGraceMs: config.killGraceMs,
        tailLines: config.tailLines,
        cwd,
        workspace,
        pythonEnvCacheDir: config.pythonEnvCacheDir ?? pythonEnvCacheDir(),
        slots: () => ({ running, maxConcurrency: config.maxConcurrency }),
      });
      jobs.set(resolved.name, job);
      queue.push(job);
      pump();
      return job;
    },

    async shutdown(shutdownOptions: { wait?: boolean } = {}): Promise<void> {
      closed = true;
      const all = [...jobs.values()];
      // Marin's default: wait for running jobs. close() and disposal stop them instead.
      if (shutdownOptions.wait ?? true) await Promise.all(all.map((j) => j.finished));
      else await Promise.all(all.map((j) => j.terminate()));
    },

    close(): Promise<void> {
      return client.shutdown({ wait: false });
    },

    [Symbol.asyncDispose](): Promise<void> {
      return client.shutdown({ wait: false });
    },
  };
  return client;
}
