import { afterEach, describe, expect, it } from 'vitest';
import { Entrypoint } from '../request/entrypoint.js';
import type { Client } from '../client/client.js';
import { withClient } from '../client/client-scope.js';
import { currentClient, setDefaultClientFactory } from './current-client.js';

function fakeClient(label: string): Client & { label: string } {
  const client = {
    label,
    submit: () => Promise.reject(new Error('not used')),
    shutdown: () => Promise.resolve(),
    close: () => Promise.resolve(),
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
  return client;
}

describe('currentClient()', () => {
  afterEach(() => setDefaultClientFactory(null));

  it('returns the same default client every time', () => {
    setDefaultClientFactory(() => fakeClient('default'));
    const first = currentClient();
    expect(currentClient()).toBe(first);
  });

  it('prefers withClient, restores after the scope, also when nested and across await', async () => {
    setDefaultClientFactory(() => fakeClient('default'));
    const outer = fakeClient('outer');
    const inner = fakeClient('inner');
    const fallback = currentClient();
    await withClient(outer, async () => {
      expect(currentClient()).toBe(outer);
      await withClient(inner, async () => {
        await new Promise((r) => setTimeout(r, 1));
        expect(currentClient()).toBe(inner);
      });
      await new Promise((r) => setTimeout(r, 1));
      expect(currentClient()).toBe(outer);
    });
    expect(currentClient()).toBe(fallback);
  });

  it('restores the previous client when the scope throws', () => {
    setDefaultClientFactory(() => fakeClient('default'));
    const fallback = currentClient();
    expect(() =>
      withClient(fakeClient('x'), () => {
        throw new Error('inside');
      }),
    ).toThrow('inside');
    expect(currentClient()).toBe(fallback);
  });

  it('builds a local client by default outside an Iris task, the same one inside its in-process jobs', async () => {
    const client = currentClient() as Client & { backend?: string };
    expect(client.backend).toBe('local');
    let inside: Client | undefined;
    const job = await client.submit({ name: 'inside', entrypoint: Entrypoint.fromCallable(() => (inside = currentClient())) });
    await job.wait();
    expect(inside).toBe(client);
    expect(currentClient()).toBe(client);
    await client.close();
  });
});
