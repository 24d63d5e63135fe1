import { startLocalCluster } from '@marin/iris';
import type { IrisClient, LocalClusterHandle, LocalClusterOptions } from '@marin/iris';
import { afterAll, beforeAll } from 'vitest';

/** The embedded Iris cluster of one test file and a client of it, valid between `beforeAll` and `afterAll`. */
export interface EmbeddedCluster {
  readonly cluster: LocalClusterHandle;
  readonly client: IrisClient;
}

/** Starts an embedded Iris cluster before the file's tests and closes it (and its client) after them. */
export function useEmbeddedCluster(options: LocalClusterOptions): EmbeddedCluster {
  let cluster: LocalClusterHandle | undefined;
  let client: IrisClient | undefined;
  beforeAll(async () => {
    cluster = await startLocalCluster(options);
    client = cluster.client();
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await cluster?.close();
  }, 60_000);
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the embedded cluster is used outside its tests');
    return value;
  };
  return {
    get cluster() {
      return started(cluster);
    },
    get client() {
      return started(client);
    },
  };
}
