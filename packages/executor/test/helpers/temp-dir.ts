import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A temporary directory removed on dispose. */
export interface TempDir extends AsyncDisposable {
  readonly path: string;
  close(): Promise<void>;
}

/** Creates a fresh temporary directory (for a prefix, counter files, fixtures). */
export async function makeTempDir(label = 'executor-test'): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), `${label}-`));
  const close = async (): Promise<void> => {
    await rm(path, { recursive: true, force: true });
  };
  return { path, close, [Symbol.asyncDispose]: close };
}
