import type { Client } from '../client/client.js';
import { scopedClient } from '../client/client-scope.js';
import { createDefaultClient } from './default-client.js';

/** Builds the client `currentClient()` falls back to outside any `withClient` scope. */
export type DefaultClientFactory = () => Client;

let defaultClient: Client | null = null;
let factoryOverride: DefaultClientFactory | null = null;

/**
 * Replaces how the process-wide default client is built (`null` restores the standard rule) and drops the
 * cached default, so the next `currentClient()` builds a fresh one. The dropped client is not closed.
 */
export function setDefaultClientFactory(factory: DefaultClientFactory | null): void {
  factoryOverride = factory;
  defaultClient = null;
}

/**
 * The client to submit to, in this order: the innermost `withClient` scope; the backend `FRAY_BACKEND` names
 * (`local`, `iris`, `ray`); inside an Iris task (`IRIS_TASK_ID` and `IRIS_CONTROLLER_ADDRESS` set) an Iris backend
 * whose submissions become child jobs; with `RAY_ADDRESS` (or `FRAY_RAY_ADDRESS`) set, the Ray backend; otherwise
 * one process-wide local client. The default is created on first use and reused.
 */
export function currentClient(): Client {
  const inScope = scopedClient();
  if (inScope !== undefined) return inScope;
  defaultClient ??= (factoryOverride ?? createDefaultClient)();
  return defaultClient;
}
