import { FrayError } from '../errors.js';
import { loadModuleExport } from '../backends/local/load-module-export.js';
import type { JsonValue } from '../request/entrypoint.js';
import { hostActor } from './actor-host.js';
import type { PythonHostSpec } from './python-actor.js';
import { runPythonActorChild } from './python-actor-child.js';
import { actorStopRequested } from './stop-requested.js';

/** The stdout line prefix an actor process prints once it serves: `FRAY_ACTOR_READY {"address": "host:port"}`. */
export const ACTOR_READY_PREFIX = 'FRAY_ACTOR_READY ';
/** The endpoint an actor running as an Iris job registers: `<job id>` + this suffix. */
export const IRIS_ACTOR_ENDPOINT_SUFFIX = '/actor';
export { ACTOR_PARENT_PID_ENV } from './stop-requested.js';

/** What an actor process runs: an export of a module, built with `args`, served under `name`. */
export interface ActorHostSpec {
  /** Workspace path (`packages/x/src/y.ts`) or package specifier. */
  readonly module: string;
  /** A class (constructed with `new`) or a factory function (called, result awaited). */
  readonly exportName: string;
  /** Positional arguments of the constructor or factory. */
  readonly args: readonly JsonValue[];
  /** The actor's name. */
  readonly name: string;
  /** Inside an Iris task: register the endpoint `<IRIS_JOB_ID>/actor` with the controller once serving. */
  readonly irisEndpoint?: boolean;
  /** A Python actor: this process starts `fray_actors.serve` with the interpreter and relays its readiness. */
  readonly python?: PythonHostSpec;
}

function isClass(fn: unknown): boolean {
  return typeof fn === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(fn));
}

/**
 * Builds the actor instance of `spec`: `new Export(...args)` for a class, else `await Export(...args)`.
 * @throws {FrayError} FRAY_INVALID_ARGUMENT when the module or export is missing, or the factory returns no object
 */
export async function buildActorInstance(spec: ActorHostSpec, workspace: string): Promise<object> {
  const fn = await loadModuleExport(workspace, spec.module, spec.exportName);
  const instance: unknown = isClass(fn) ? new (fn as unknown as new (...a: unknown[]) => unknown)(...spec.args) : await fn(...spec.args);
  if (instance === null || typeof instance !== 'object') {
    throw new FrayError('FRAY_INVALID_ARGUMENT', `actor export "${spec.exportName}" of "${spec.module}" returned ${String(instance)}, not an object with methods`);
  }
  return instance;
}

/**
 * The body of an actor process (run as a module entrypoint of `@marin/fray`): builds the instance, serves it,
 * announces readiness (a {@link ACTOR_READY_PREFIX} line; inside an Iris task also an endpoint registered with
 * the controller), and serves until SIGTERM/SIGINT or until its creator ({@link ACTOR_PARENT_PID_ENV}) is gone.
 */
export async function runActorHost(spec: ActorHostSpec): Promise<void> {
  const workspace = process.env['FRAY_WORKSPACE'] || process.cwd();
  if (spec.python !== undefined) {
    await runPythonActorChild(spec, spec.python, workspace);
    return;
  }
  const instance = await buildActorInstance(spec, workspace);
  const inIris = (process.env['IRIS_TASK_ID'] ?? '') !== '';
  const host = inIris ? process.env['IRIS_ADVERTISE_HOST'] || undefined : undefined;
  const hosted = await hostActor(instance, {
    name: spec.name,
    ...(host === undefined ? {} : { host }),
    ...(spec.irisEndpoint === true ? { irisEndpoint: IRIS_ACTOR_ENDPOINT_SUFFIX.slice(1) } : {}),
  });
  process.stdout.write(`${ACTOR_READY_PREFIX}${JSON.stringify({ address: hosted.address, pid: process.pid })}\n`);
  await actorStopRequested();
  await hosted.close();
}
