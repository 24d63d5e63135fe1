import { AsyncLocalStorage } from 'node:async_hooks';
import type { Client } from './client.js';

const scoped = new AsyncLocalStorage<Client>();

/** Builds the client `currentClient()` falls back to: an Iris backend inside an Iris task, else a local one. */
export type DefaultClientFactory = () => Client;

let defaultClient: Client | null = null;
let defaultFactory: DefaultClientFactory | null = null;

/**
 * Runs `fn` with `client` as the current client; restored when `fn` settles, nestable
 * (Marin's `set_current_client`). `AsyncLocalStorage` follows `await`, so jobs running in-process see it too.
 */
export function withClient<T>(client: Client, fn: () => T): T {
  return scoped.run(client, fn);
}

/**
 * Installs how the process-wide default client is built. The package barrel installs the standard factory
 * (Iris inside an Iris task, else local); tests and embedders may replace it. Resets any cached default.
 */
export function setDefaultClientFactory(factory: DefaultClientFactory | null): void {
  defaultFactory = factory;
  defaultClient = null;
}

/**
 * The client to submit to: the innermost {@link withClient} scope, else the process-wide default (an Iris
 * backend inside an Iris task, else a local client), created on first use and reused.
 */
export function currentClient(): Client {
  const inScope = scoped.getStore();
  if (inScope !== undefined) return inScope;
  if (defaultClient === null) {
    if (defaultFactory === null) throw new Error('no default Fray client factory installed');
    defaultClient = defaultFactory();
  }
  return defaultClient;
}
