import { createRequire } from 'node:module';
import type { Storage, StorageOptions } from '@google-cloud/storage';

// @google-cloud/storage costs about 250 ms to load, which every process that imports rigging would pay
// (the `iris` CLI among them) though most never touch gs://. Load it on first use instead.
const require = createRequire(import.meta.url);
function newStorage(options?: StorageOptions): Storage {
  const lib = require('@google-cloud/storage') as typeof import('@google-cloud/storage');
  return new lib.Storage(options);
}

/** Options of {@link createGcsClient}. */
export interface GcsClientOptions {
  /** Explicit endpoint, e.g. `http://127.0.0.1:4443` (fake-gcs-server). @default STORAGE_EMULATOR_HOST, else real GCS */
  endpoint?: string;
  /** Project id. @default 'test' with an endpoint, else application default credentials decide */
  projectId?: string;
}

let shared: Storage | undefined;

function emulatorEndpoint(): string | undefined {
  const host = process.env['STORAGE_EMULATOR_HOST'];
  if (host === undefined || host === '') return undefined;
  return /^https?:\/\//.test(host) ? host.replace(/\/+$/, '') : `http://${host.replace(/\/+$/, '')}`;
}

/**
 * A `Storage` client: with an endpoint (or `STORAGE_EMULATOR_HOST`) it targets that endpoint through
 * an explicit `apiEndpoint` and sends no credentials; otherwise it uses application default credentials.
 */
export function createGcsClient(opts: GcsClientOptions = {}): Storage {
  const endpoint = opts.endpoint ?? emulatorEndpoint();
  if (endpoint !== undefined) {
    // The library takes STORAGE_EMULATOR_HOST verbatim as its base URL and drops the `/storage/v1`
    // prefix; hide it while constructing so the explicit apiEndpoint decides.
    const saved = process.env['STORAGE_EMULATOR_HOST'];
    delete process.env['STORAGE_EMULATOR_HOST'];
    try {
      return newStorage({ apiEndpoint: endpoint, projectId: opts.projectId ?? 'test', useAuthWithCustomEndpoint: false });
    } finally {
      if (saved !== undefined) process.env['STORAGE_EMULATOR_HOST'] = saved;
    }
  }
  return newStorage(opts.projectId === undefined ? undefined : { projectId: opts.projectId });
}

/** The process-wide client (created on first use from the environment). */
export function sharedGcsClient(): Storage {
  shared ??= createGcsClient();
  return shared;
}
