import { AsyncLocalStorage } from 'node:async_hooks';
import type { Client } from './client.js';

const scoped = new AsyncLocalStorage<Client>();

/**
 * Runs `fn` with `client` as the current client; restored when `fn` settles, nestable
 * (Marin's `set_current_client`). `AsyncLocalStorage` follows `await`, so jobs running in-process see it too.
 */
export function withClient<T>(client: Client, fn: () => T): T {
  return scoped.run(client, fn);
}

/** The client of the innermost {@link withClient} scope, or `undefined` outside any. */
export function scopedClient(): Client | undefined {
  return scoped.getStore();
}
