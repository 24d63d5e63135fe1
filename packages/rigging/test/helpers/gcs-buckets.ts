import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';

/** The emulator endpoint provided by the global setup. */
export function gcsEndpoint(): string {
  return inject('gcsEndpoint');
}

/** Creates a uniquely named bucket on the emulator and returns its name. */
export async function createTestBucket(prefix = 'rigging-test'): Promise<string> {
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  await createNamedBucket(name);
  return name;
}

/** Creates a bucket with exactly this name (idempotent). */
export async function createNamedBucket(name: string): Promise<void> {
  const res = await fetch(`${gcsEndpoint()}/storage/v1/b?project=test`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  if (!res.ok && res.status !== 409) throw new Error(`bucket ${name}: HTTP ${res.status}`);
}
