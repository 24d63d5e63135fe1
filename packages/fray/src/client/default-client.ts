import { createInTaskIrisBackend } from '../backends/iris/iris-backend.js';
import { createLocalClient } from '../backends/local/local-client.js';
import type { Client } from './client.js';

/**
 * The standard default client: inside an Iris task (`IRIS_TASK_ID` and `IRIS_CONTROLLER_ADDRESS` set) an Iris
 * backend whose submissions become child jobs of the task's job; otherwise a local client.
 */
export function createDefaultClient(env: NodeJS.ProcessEnv = process.env): Client {
  return createInTaskIrisBackend(env) ?? createLocalClient();
}
