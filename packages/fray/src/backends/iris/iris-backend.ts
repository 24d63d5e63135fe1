import { buildSetupCommands, irisContext } from '@marin/iris/core';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { Client, JobHandle, SubmitOptions } from '../../client/client.js';
import { stderrLogger } from '../../client/logger.js';
import type { FrayLogger } from '../../client/logger.js';
import { JobAlreadyExists } from '../../client/job-already-exists.js';
import { FrayError } from '../../errors.js';
import type { JobRequest, ResolvedJobRequest } from '../../request/job-request.js';
import { resolveJobRequest } from '../../request/job-request.js';
import { readDependencyGroups, resolveDependencyGroups } from '../../request/dependency-groups.js';
import { findWorkspaceRoot } from '../../runner/workspace-root.js';
import type { IrisJobClient, IrisJobSpec } from './iris-job-client.js';
import { IrisJobHandle, frayErrorOfIris } from './iris-job-handle.js';
import { buildIrisLaunchPlan } from './launch-plan.js';
import type { IrisLaunchPlan } from './launch-plan.js';

/** Options of {@link createIrisBackend}. */
export interface IrisBackendOptions {
  /** Controller `host:port`; used when no `irisClient` is given. @default IRIS_CONTROLLER_ADDRESS */
  controller?: string;
  /** Shared token for `controller`. @default IRIS_AUTH_TOKEN */
  token?: string;
  /** An open Iris client to use instead of connecting; the backend does not close it. */
  irisClient?: IrisJobClient;
  /** Bundle root and where dependency groups are declared. @default the git top level of process.cwd() */
  workspace?: string;
  /**
   * Run jobs in `workspace` as it is, with no bundle and no setup: for an embedded cluster on this machine
   * sharing the workspace. @default false
   */
  inPlace?: boolean;
  /**
   * Inside an Iris task: submissions become children of the task's job, reuse its bundle and inherit its setup
   * unless the request sets dependency groups, npm packages or setup commands. @default false
   */
  inTask?: boolean;
  /** Receives warnings (failures returned without raising, ignored images). @default stderr */
  logger?: FrayLogger;
}

const OptionsSchema = z.strictObject({
  controller: z.string().regex(/^.+:\d+$/, 'must be host:port').optional(),
  token: z.string().min(1).optional(),
  irisClient: z.custom<IrisJobClient>((v) => typeof v === 'object' && v !== null && 'launchJob' in v && 'getJobStates' in v).optional(),
  workspace: z.string().min(1).optional(),
  inPlace: z.boolean().default(false),
  inTask: z.boolean().default(false),
  logger: z.custom<FrayLogger>((v) => typeof v === 'object' && v !== null && 'warn' in v).optional(),
});

/** A Fray client over an Iris cluster. */
export interface IrisBackend extends Client {
  /** Always `'iris'`. */
  readonly backend: 'iris';
  /** The spec the backend would launch for `request` (no submission); for inspection and tests. */
  toJobSpec(request: JobRequest, options?: SubmitOptions): IrisJobSpec;
}

/**
 * Creates the Iris backend: converts requests (resources, constraints, coscheduling, env, setup, entrypoints)
 * into Iris job specs, and maps Iris job states back to Fray statuses.
 *
 * @throws {FrayError} FRAY_INVALID_ARGUMENT for a bad option
 */
export function createIrisBackend(options: IrisBackendOptions = {}): IrisBackend {
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new FrayError('FRAY_INVALID_ARGUMENT', `invalid iris backend option ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'bad value'}`, {
      cause: parsed.error,
    });
  }
  const config = parsed.data;
  let client: IrisJobClient;
  const ownsClient = config.irisClient === undefined;
  if (config.irisClient !== undefined) {
    client = config.irisClient;
  } else {
    const address = config.controller ?? process.env['IRIS_CONTROLLER_ADDRESS'];
    if (address === undefined || address === '') {
      throw new FrayError('FRAY_INVALID_ARGUMENT', 'no Iris controller: pass controller ("host:port") or irisClient, or set IRIS_CONTROLLER_ADDRESS');
    }
    if (!/^.+:\d+$/.test(address)) throw new FrayError('FRAY_INVALID_ARGUMENT', `invalid Iris controller address "${address}": use "host:port"`);
    client = connectOnFirstUse(address, config.token);
  }
  const logger = config.logger ?? stderrLogger;
  let workspaceRoot = config.workspace;
  const workspace = (): string => (workspaceRoot ??= findWorkspaceRoot());
  const handles: IrisJobHandle[] = [];
  let closed = false;
  let warnedImage = false;
  const fileDirs: string[] = [];

  // In place, the worker would write workdir files into the shared workspace, where concurrent jobs clobber each
  // other; in-place jobs run on this machine, so the files go to a private dir and arguments name them by path.
  const placeFilesPrivately = (spec: IrisJobSpec): IrisJobSpec => {
    const files = Object.entries(spec.entrypoint.workdirFiles);
    if (!config.inPlace || files.length === 0) return spec;
    const dir = mkdtempSync(join(tmpdir(), 'fray-iris-files-'));
    fileDirs.push(dir);
    for (const [name, content] of files) writeFileSync(join(dir, name), content);
    const run = spec.entrypoint.run.map((a) => (Object.hasOwn(spec.entrypoint.workdirFiles, a) ? join(dir, a) : a));
    return { ...spec, entrypoint: { ...spec.entrypoint, run, workdirFiles: {} } };
  };

  // Each workspace is packed and uploaded once per backend, on first use; a failed upload is retried next time.
  const bundles = new Map<string, Promise<string>>();
  const workspaceBundle = (root: string): Promise<string> => {
    let id = bundles.get(root);
    if (id === undefined) {
      id = (async () => client.uploadBundle(await (await loadIris()).createBundle({ root })))().catch((e: unknown) => {
        bundles.delete(root);
        throw frayErrorOfIris(e, `upload of the workspace bundle from "${root}"`);
      });
      bundles.set(root, id);
    }
    return id;
  };

  const setupOf = (resolved: ResolvedJobRequest): { setup?: string[][]; dependencyGroups?: string[]; npmPackages?: string[] } => {
    const env = resolved.environment;
    if (config.inPlace) {
      // Nothing is installed in place, but a misspelt group must fail here as it would with a bundle.
      if ((env.dependencyGroups?.length ?? 0) > 0) {
        resolveDependencyGroups(env.dependencyGroups, resolved.resources.device, readDependencyGroups(env.workspace ?? workspace()));
      }
      return {};
    }
    if (env.setupCommands !== undefined) return { setup: env.setupCommands.map((c) => [...c]) };
    const explicit = env.dependencyGroups !== undefined || (env.npmPackages?.length ?? 0) > 0;
    // A child inherits its parent's environment unless it asks for its own.
    if (config.inTask && !explicit) return {};
    const root = env.workspace ?? workspace();
    const groups = resolveDependencyGroups(env.dependencyGroups, resolved.resources.device, readDependencyGroups(root));
    const npmPackages = [...(env.npmPackages ?? [])];
    let setup: string[][];
    try {
      setup = buildSetupCommands({ bundleRoot: root, dependencyGroups: groups, npmPackages });
    } catch (e) {
      throw frayErrorOfIris(e, `setup of job "${resolved.name}"`);
    }
    return { setup, dependencyGroups: groups, npmPackages };
  };

  const specOf = (request: JobRequest, submitOptions: SubmitOptions = {}): IrisJobSpec => {
    const resolved = resolveJobRequest(request);
    const plan: IrisLaunchPlan = buildIrisLaunchPlan(resolved, { adoptExisting: submitOptions.adoptExisting ?? true });
    if (resolved.resources.image !== undefined && !warnedImage) {
      warnedImage = true;
      logger.warn(`task images are not supported yet; ignoring image "${resolved.resources.image}"`);
    }
    const { setup, dependencyGroups, npmPackages } = setupOf(resolved);
    const spec: IrisJobSpec = {
      name: plan.name,
      entrypoint: { run: [...plan.argv], workdirFiles: { ...plan.workdirFiles }, ...(setup === undefined ? {} : { setup }) },
      resources: {
        cpu: plan.cpuMillicores / 1000,
        memory: plan.memoryBytes,
        disk: plan.diskBytes,
        device: { ...plan.device },
      },
      replicas: plan.replicas,
      constraints: plan.constraints.map((c) => ({
        key: c.key,
        op: c.op,
        ...(c.value === undefined ? {} : { value: c.value }),
        ...(c.values === undefined ? {} : { values: [...c.values] }),
      })),
      env: { ...plan.envVars },
      maxRetriesFailure: plan.maxRetriesFailure,
      maxRetriesPreemption: plan.maxRetriesPreemption,
      existingJobPolicy: plan.existingJobPolicy,
    };
    if (plan.coscheduling !== null) spec.coscheduling = { ...plan.coscheduling };
    if (dependencyGroups !== undefined) spec.dependencyGroups = dependencyGroups;
    if (npmPackages !== undefined && npmPackages.length > 0) spec.npmPackages = npmPackages;
    if (plan.pythonEnv !== null) spec.pythonEnv = { ...plan.pythonEnv };
    if (plan.priority !== null) spec.priority = plan.priority;
    if (config.inPlace) spec.inPlaceWorkdir = resolved.environment.workspace ?? workspace();
    return spec;
  };

  const backend: IrisBackend = {
    backend: 'iris',
    toJobSpec: specOf,

    async submit(request: JobRequest, submitOptions: SubmitOptions = {}): Promise<JobHandle> {
      if (closed) throw new FrayError('FRAY_BACKEND_UNAVAILABLE', 'iris backend is shut down', { retryable: false });
      const spec = placeFilesPrivately(specOf(request, submitOptions));
      // In place: no bundle; in a task: the parent's bundle (the client's default); else the workspace bundle.
      const root = request.environment?.workspace ?? workspace();
      const bundle = config.inPlace ? null : config.inTask ? undefined : { bundleId: await workspaceBundle(root) };
      let jobId: string;
      try {
        jobId = await client.launchJob(spec, bundle === undefined ? {} : { bundle });
      } catch (e) {
        const code = typeof e === 'object' && e !== null && 'code' in e ? (e as { code: unknown }).code : undefined;
        if (code === 'IRIS_ALREADY_EXISTS') throw new JobAlreadyExists(spec.name, undefined, e);
        throw frayErrorOfIris(e, `launch of job "${spec.name}"`);
      }
      const handle = new IrisJobHandle(jobId, client, logger);
      handles.push(handle);
      return handle;
    },

    async shutdown(shutdownOptions: { wait?: boolean } = {}): Promise<void> {
      if (closed) return;
      closed = true;
      // Cluster jobs outlive the submitter unless the caller waits for them; shutdown never kills them.
      if (shutdownOptions.wait ?? true) await Promise.all(handles.map((h) => h.wait({ raiseOnFailure: false }).catch(() => undefined)));
      if (ownsClient) await client.close();
      for (const dir of fileDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },

    close(): Promise<void> {
      return backend.shutdown({ wait: false });
    },

    [Symbol.asyncDispose](): Promise<void> {
      return backend.shutdown({ wait: false });
    },
  };
  return backend;
}

/**
 * `@marin/iris` itself (its client, gRPC and the bundle packer) loads when a backend first talks to a controller,
 * so importing Fray, or running jobs only locally, never loads gRPC.
 */
function loadIris(): Promise<typeof import('@marin/iris')> {
  return import('@marin/iris');
}

/** A client for `address` that loads `@marin/iris` and connects on its first call. */
function connectOnFirstUse(address: string, token: string | undefined): IrisJobClient {
  let connected: Promise<IrisJobClient> | undefined;
  const connect = (): Promise<IrisJobClient> =>
    (connected ??= loadIris()
      .then(({ createIrisClient }) => createIrisClient({ address, ...(token === undefined ? {} : { token }) }))
      .catch((e: unknown) => {
        throw frayErrorOfIris(e, `connect to "${address}"`);
      }));
  return {
    launchJob: async (...args) => (await connect()).launchJob(...args),
    getJob: async (...args) => (await connect()).getJob(...args),
    getJobStates: async (...args) => (await connect()).getJobStates(...args),
    terminateJob: async (...args) => (await connect()).terminateJob(...args),
    fetchLogs: async (...args) => (await connect()).fetchLogs(...args),
    uploadBundle: async (...args) => (await connect()).uploadBundle(...args),
    close: async () => {
      // A client that never connected has nothing to close.
      await connected?.then((c) => c.close(), () => undefined);
    },
  };
}

/**
 * The Iris backend a task uses for its own submissions, or `null` outside an Iris task: it connects to the task's
 * controller with the task's token, names jobs as children of the task's job and reuses the task's bundle. A task
 * that itself runs in place (no bundle) submits children in place in the same directory.
 */
export function createInTaskIrisBackend(env: NodeJS.ProcessEnv = process.env, logger?: FrayLogger): IrisBackend | null {
  const ctx = irisContext(env);
  if (ctx === null || ctx.controllerAddress === '') return null;
  const workdir = ctx.workdir === '' ? process.cwd() : ctx.workdir;
  return createIrisBackend({
    controller: ctx.controllerAddress,
    ...(ctx.authToken === undefined ? {} : { token: ctx.authToken }),
    workspace: workdir,
    inTask: true,
    inPlace: ctx.bundleId === '',
    ...(logger === undefined ? {} : { logger }),
  });
}
