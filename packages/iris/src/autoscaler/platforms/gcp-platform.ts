import { IrisError } from '../../errors.js';
import type { IrisErrorCode } from '../../errors.js';
import {
  createNodeRequest,
  createQueuedResourceRequest,
  deleteRequest,
  listRequest,
  nodeStatus,
  ownedSlice,
  queuedResourceStatus,
} from './gcp-tpu-requests.js';
import type { TpuApiRequest, TpuNode, TpuQueuedResource, TpuRequestSettings } from './gcp-tpu-requests.js';
import type { Platform, PlatformSlice, SliceRequest } from './platform.js';
import { vmCountOf } from './platform.js';

const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** The part of `fetch` the platform uses; pass another to record or redirect requests. */
export type FetchLike = (url: string, init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal }) => Promise<{
  readonly status: number;
  text(): Promise<string>;
}>;

/** Options of {@link createGcpPlatform}: Cloud TPU VMs through the TPU API v2. */
export interface GcpPlatformOptions {
  readonly project: string;
  /** Zones whose nodes and queued resources `listSlices` reads (the zones of the platform's groups). */
  readonly zones: readonly string[];
  /** Cluster name, the `iris-cluster` label; only resources with it are listed or adopted. @default "iris" */
  readonly cluster?: string;
  /** @default "v2-alpha-tpuv5-lite" */
  readonly runtimeVersion?: string;
  /** Create multi-VM slices as queued resources (single-VM slices are always plain nodes). @default true */
  readonly queuedResources?: boolean;
  /** npm package spec the startup script installs. @default "@marin/iris" */
  readonly irisPackage?: string;
  /** @default "default" */
  readonly network?: string;
  readonly subnetwork?: string;
  /** @default true (the startup script downloads Node and the worker package) */
  readonly enableExternalIps?: boolean;
  /** Service account email the VMs run as. @default the project's default compute account */
  readonly serviceAccount?: string;
  /** API root. @default "https://tpu.googleapis.com" */
  readonly endpoint?: string;
  /** HTTP transport. @default globalThis.fetch */
  readonly fetch?: FetchLike;
  /** Bearer token source. @default Application Default Credentials through google-auth-library, loaded on first use */
  readonly getAccessToken?: () => Promise<string | undefined>;
  /** Between polls of a long-running operation. @default 5000 */
  readonly operationPollMs?: number;
  /** How long a create or delete operation may take before the call fails. @default 900000 */
  readonly operationTimeoutMs?: number;
}

/** A long-running operation as the TPU API returns it. */
interface Operation {
  readonly name: string;
  readonly done?: boolean;
  readonly error?: { readonly code?: number; readonly message?: string };
}

interface KnownSlice {
  readonly zone: string;
  readonly group: string;
  readonly queued: boolean;
}

/** gRPC code 8 (RESOURCE_EXHAUSTED) and friends in an operation's `error.code`. */
function codeForRpc(code: number | undefined): IrisErrorCode {
  if (code === 8) return 'IRIS_INSUFFICIENT_RESOURCES';
  if (code === 6) return 'IRIS_ALREADY_EXISTS';
  if (code === 3) return 'IRIS_INVALID_ARGUMENT';
  if (code === 7 || code === 16) return 'IRIS_UNAUTHENTICATED';
  return 'IRIS_UNAVAILABLE';
}

function codeForHttp(status: number): IrisErrorCode {
  if (status === 400) return 'IRIS_INVALID_ARGUMENT';
  if (status === 401 || status === 403) return 'IRIS_UNAUTHENTICATED';
  if (status === 404) return 'IRIS_NOT_FOUND';
  if (status === 409) return 'IRIS_ALREADY_EXISTS';
  if (status === 429) return 'IRIS_INSUFFICIENT_RESOURCES';
  return 'IRIS_UNAVAILABLE';
}

/**
 * The `gcp` platform: each slice is one Cloud TPU node (every VM of the slice) or, for multi-VM
 * slices with `queuedResources`, one queued resource holding that node, so GCP provisions the whole
 * slice or nothing. Nodes carry the labels `iris-cluster`, `iris-scale-group`, `iris-slice-id` and
 * `managed-by=iris`, and a startup script that installs the worker package and runs `iris worker
 * start` on every VM. `createSlice` waits for the create operation (for a queued resource: until
 * GCP accepted it) and deletes what it made when the operation fails; `listSlices` reads nodes and
 * queued resources in `zones` and maps their states (see `nodeStatus`).
 */
export function createGcpPlatform(options: GcpPlatformOptions): Platform {
  const settings: TpuRequestSettings = {
    project: options.project,
    cluster: options.cluster ?? 'iris',
    runtimeVersion: options.runtimeVersion ?? 'v2-alpha-tpuv5-lite',
    network: options.network ?? 'default',
    subnetwork: options.subnetwork,
    enableExternalIps: options.enableExternalIps ?? true,
    serviceAccount: options.serviceAccount,
    irisPackage: options.irisPackage ?? '@marin/iris',
  };
  const endpoint = (options.endpoint ?? 'https://tpu.googleapis.com').replace(/\/+$/, '');
  const doFetch: FetchLike = options.fetch ?? ((url, init) => fetch(url, init));
  const pollMs = options.operationPollMs ?? 5000;
  const operationTimeoutMs = options.operationTimeoutMs ?? 15 * 60_000;
  const zones = new Set(options.zones);
  const known = new Map<string, KnownSlice>();
  const controller = new AbortController();

  let auth: Promise<{ getAccessToken(): Promise<string | null | undefined> }> | undefined;
  const accessToken = async (): Promise<string | undefined> => {
    if (options.getAccessToken) return options.getAccessToken();
    try {
      auth ??= import('google-auth-library').then(({ GoogleAuth }) => new GoogleAuth({ scopes: [CLOUD_PLATFORM_SCOPE] }));
      return (await (await auth).getAccessToken()) ?? undefined;
    } catch (e) {
      auth = undefined;
      throw new IrisError('IRIS_UNAUTHENTICATED', `gcp platform: no Application Default Credentials: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  };

  /** Sends one request; resolves with the parsed JSON body, or `undefined` for a 404 when `allowMissing`. */
  const call = async <T>(request: TpuApiRequest, allowMissing = false): Promise<T | undefined> => {
    const token = await accessToken();
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token) headers['authorization'] = `Bearer ${token}`;
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    let status: number;
    let text: string;
    try {
      const res = await doFetch(`${endpoint}${request.path}`, { method: request.method, headers, ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}), signal: controller.signal });
      status = res.status;
      text = await res.text();
    } catch (e) {
      throw new IrisError('IRIS_UNAVAILABLE', `gcp platform: ${request.method} ${request.path} failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    if (status === 404 && allowMissing) return undefined;
    if (status < 200 || status >= 300) {
      let message = text.slice(0, 500);
      try {
        message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
      } catch {
        // Not JSON: keep the raw text.
      }
      throw new IrisError(codeForHttp(status), `gcp platform: ${request.method} ${request.path}: HTTP ${status}: ${message}`, { details: { status } });
    }
    return (text ? JSON.parse(text) : {}) as T;
  };

  /** Polls an operation until it is done; throws with the operation's error. */
  const awaitOperation = async (op: Operation | undefined, what: string): Promise<void> => {
    const deadline = Date.now() + operationTimeoutMs;
    let current = op;
    while (current && !current.done) {
      if (Date.now() > deadline) throw new IrisError('IRIS_DEADLINE_EXCEEDED', `gcp platform: ${what} did not finish within ${operationTimeoutMs} ms (operation ${current.name})`);
      await new Promise((r) => setTimeout(r, pollMs));
      current = await call<Operation>({ method: 'GET', path: `/v2/${current.name}` });
    }
    if (current?.error) throw new IrisError(codeForRpc(current.error.code), `gcp platform: ${what} failed: ${current.error.message ?? `code ${current.error.code}`}`, { details: { rpcCode: current.error.code } });
  };

  const deleteSlice = async (sliceId: string): Promise<void> => {
    const slice = known.get(sliceId);
    if (!slice) return;
    const op = await call<Operation>(deleteRequest(settings.project, slice.zone, sliceId, slice.queued), true);
    await awaitOperation(op, `delete of ${sliceId}`);
    known.delete(sliceId);
  };

  const listPages = async <T>(zone: string, what: 'nodes' | 'queuedResources'): Promise<T[]> => {
    const out: T[] = [];
    let pageToken: string | undefined;
    do {
      const page = await call<Record<string, unknown>>(listRequest(settings.project, zone, what, pageToken));
      out.push(...((page?.[what] as T[] | undefined) ?? []));
      pageToken = (page?.['nextPageToken'] as string | undefined) || undefined;
    } while (pageToken);
    return out;
  };

  const close = async (): Promise<void> => {
    // Slices stay up (the autoscaler deletes them); only in-flight polls stop.
    controller.abort();
  };

  return {
    kind: 'gcp',
    async createSlice(request: SliceRequest): Promise<void> {
      const g = request.group;
      if (g.slice.kind !== 'tpu' || g.zone === undefined) {
        throw new IrisError('IRIS_INVALID_ARGUMENT', `gcp platform: scale group "${g.name}" needs a TPU slice and a zone`);
      }
      const queued = (options.queuedResources ?? true) && vmCountOf(g) > 1;
      const slice: KnownSlice = { zone: g.zone, group: g.name, queued };
      zones.add(g.zone);
      const create = queued ? createQueuedResourceRequest(request, settings) : createNodeRequest(request, settings);
      const op = await call<Operation>(create);
      known.set(request.sliceId, slice);
      try {
        await awaitOperation(op, `create of ${request.sliceId}`);
      } catch (e) {
        // All or nothing: whatever the failed operation left behind goes.
        await deleteSlice(request.sliceId).catch(() => undefined);
        known.delete(request.sliceId);
        throw e;
      }
    },
    deleteSlice,
    async listSlices(): Promise<PlatformSlice[]> {
      const bySlice = new Map<string, PlatformSlice>();
      for (const zone of zones) {
        const [nodes, queuedResources] = await Promise.all([listPages<TpuNode>(zone, 'nodes'), listPages<TpuQueuedResource>(zone, 'queuedResources')]);
        const queuedState = new Map<string, PlatformSlice['status']>();
        for (const qr of queuedResources) {
          const owned = ownedSlice(qr.tpu?.nodeSpec?.[0]?.node?.labels, settings.cluster);
          if (!owned) continue;
          known.set(owned.sliceId, { zone, group: owned.group, queued: true });
          const status = queuedResourceStatus(qr.state?.state);
          queuedState.set(owned.sliceId, status);
          bySlice.set(owned.sliceId, { ...owned, status });
        }
        for (const node of nodes) {
          const owned = ownedSlice(node.labels, settings.cluster);
          if (!owned) continue;
          const viaQueue = queuedState.get(owned.sliceId);
          if (viaQueue === undefined) known.set(owned.sliceId, { zone, group: owned.group, queued: false });
          // An ACTIVE queued resource is as healthy as its node; otherwise the queue's state stands.
          if (viaQueue === undefined || viaQueue === 'running') bySlice.set(owned.sliceId, { ...owned, status: nodeStatus(node.state) });
        }
      }
      return [...bySlice.values()];
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
