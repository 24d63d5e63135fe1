import { createLocalClient } from '../backends/local/local-client.js';
import type { Client } from './client.js';

/**
 * The standard default client: an Iris backend over the in-task client inside an Iris task, else a local client.
 */
export function createDefaultClient(env: Readonly<Record<string, string | undefined>> = process.env): Client {
  void env;
  return createLocalClient();
}
