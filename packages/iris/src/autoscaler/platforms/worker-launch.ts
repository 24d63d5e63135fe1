import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { WorkerOptions } from '../../worker/worker-options.js';
import { sliceAttributes } from './platform.js';
import type { SliceRequest } from './platform.js';

/** The worker daemon entry next to this module: `src/worker/main.ts` from source, `dist/worker/main.js` when built. */
export function workerEntry(): { readonly path: string; readonly fromSource: boolean; readonly packageRoot: string } {
  const source = fileURLToPath(new URL('../../worker/main.ts', import.meta.url));
  if (existsSync(source)) return { path: source, fromSource: true, packageRoot: fileURLToPath(new URL('../../..', import.meta.url)) };
  return { path: fileURLToPath(new URL('./worker/main.js', import.meta.url)), fromSource: false, packageRoot: fileURLToPath(new URL('..', import.meta.url)) };
}

/** Worker daemon options for VM `vm` of a slice: its resources, slice attributes and, for TPU groups, its place in the slice. */
export function sliceWorkerOptions(request: SliceRequest, vm: number, cacheDir: string): WorkerOptions {
  const g = request.group;
  return {
    controllerAddress: request.controllerAddress,
    workerId: `${request.sliceId}-${vm}`,
    cacheDir,
    attributes: sliceAttributes(request),
    cpuMillicores: Math.round(g.resources.cpu * 1000),
    memoryBytes: g.resources.memory_bytes,
    ...(g.resources.disk_bytes > 0 ? { diskBytes: g.resources.disk_bytes } : {}),
    ...(g.slice.kind === 'tpu' ? { tpu: { variant: g.slice.tpu.name, name: request.sliceId, workerId: vm } } : {}),
    probeGpus: false,
    registerRetryInitialMs: 200,
    ...(request.authToken ? { authToken: request.authToken } : {}),
  };
}
