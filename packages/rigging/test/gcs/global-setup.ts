import type { TestProject } from 'vitest/node';
import { startFakeGcs } from '../../src/testing/fake-gcs.js';
import type { FakeGcsHandle } from '../../src/testing/fake-gcs.js';

declare module 'vitest' {
  export interface ProvidedContext {
    gcsEndpoint: string;
  }
}

let handle: FakeGcsHandle | undefined;

export async function setup(project: TestProject): Promise<void> {
  handle = await startFakeGcs();
  // Forked workers inherit the environment, so the process-wide client targets the emulator.
  process.env['STORAGE_EMULATOR_HOST'] = handle.endpoint;
  project.provide('gcsEndpoint', handle.endpoint);
}

export async function teardown(): Promise<void> {
  await handle?.close();
}
