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
  // Forked workers inherit the environment, so the process-wide client targets the emulator.
  handle = await startFakeGcs({ setEnv: true });
  project.provide('gcsEndpoint', handle.endpoint);
}

export async function teardown(): Promise<void> {
  await handle?.close();
}
