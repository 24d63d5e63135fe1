import { createInTaskIrisBackend, createIrisBackend } from './iris/iris-backend.js';
import { createLocalClient } from './local/local-client.js';
import { rayAddressFromEnv } from './ray/ray-address.js';
import { createRayClient } from './ray/ray-client.js';
import { FrayError } from '../errors.js';
import type { Client } from '../client/client.js';

/** The backends `FRAY_BACKEND` (and the executor's `--backend`) can name. */
export const FRAY_BACKENDS = ['local', 'iris', 'ray'] as const;
/** One of {@link FRAY_BACKENDS}. */
export type FrayBackendName = (typeof FRAY_BACKENDS)[number];

/**
 * A client of the named backend configured from the environment: `local`; `iris` (inside an Iris task the
 * in-task backend, else `IRIS_CONTROLLER_ADDRESS`); `ray` (`FRAY_RAY_ADDRESS` or `RAY_ADDRESS`).
 * @throws {FrayError} FRAY_INVALID_ARGUMENT for an unknown name or a backend whose address is not set
 */
export function createBackendClient(backend: string, env: NodeJS.ProcessEnv = process.env): Client {
  switch (backend) {
    case 'local':
      return createLocalClient();
    case 'iris':
      return createInTaskIrisBackend(env) ?? createIrisBackend();
    case 'ray':
      return createRayClient({}, env);
    default:
      throw new FrayError('FRAY_INVALID_ARGUMENT', `unknown Fray backend "${backend}"; use one of ${FRAY_BACKENDS.join(', ')}`, {
        details: { backend },
      });
  }
}

/**
 * The standard default client, in this order: `FRAY_BACKEND` when set (`local`, `iris` or `ray`); inside an Iris
 * task (`IRIS_TASK_ID` and `IRIS_CONTROLLER_ADDRESS` set) an Iris backend whose submissions become child jobs of the
 * task's job; with `FRAY_RAY_ADDRESS` or `RAY_ADDRESS` set, the Ray backend; otherwise a local client.
 *
 * @throws {FrayError} FRAY_INVALID_ARGUMENT for an unknown `FRAY_BACKEND` or a chosen backend with no address
 */
export function createDefaultClient(env: NodeJS.ProcessEnv = process.env): Client {
  const forced = env['FRAY_BACKEND'];
  if (forced !== undefined && forced !== '') return createBackendClient(forced, env);
  const inTask = createInTaskIrisBackend(env);
  if (inTask !== null) return inTask;
  if (rayAddressFromEnv(env) !== null) return createRayClient({}, env);
  return createLocalClient();
}
