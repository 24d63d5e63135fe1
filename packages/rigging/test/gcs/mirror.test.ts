import { randomUUID } from 'node:crypto';
import { mirrorContract } from '../contracts/mirror.contract.js';
import { createNamedBucket } from '../helpers/gcs-buckets.js';

// Three "regional" buckets on the emulator; each test works under its own run prefix in them.
mirrorContract('gcs emulator: marin-us-central1 local, marin-us-east1 and marin-eu-west4 remote', async () => {
  for (const b of ['marin-us-central1', 'marin-us-east1', 'marin-eu-west4']) await createNamedBucket(b);
  const run = randomUUID().slice(0, 8);
  return {
    local: `gs://marin-us-central1/${run}`,
    remotes: [`gs://marin-us-east1/${run}`, `gs://marin-eu-west4/${run}`] as const,
    [Symbol.asyncDispose]: async () => undefined,
  };
});
