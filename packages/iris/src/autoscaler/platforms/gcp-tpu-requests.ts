import type { PlatformSlice, SliceRequest } from './platform.js';
import { sliceWorkerOptions } from './worker-launch.js';

/** Label keys every TPU node and queued resource of an Iris cluster carries. */
export const GCP_LABELS = {
  cluster: 'iris-cluster',
  scaleGroup: 'iris-scale-group',
  sliceId: 'iris-slice-id',
  managedBy: 'managed-by',
} as const;

/** Value of the `managed-by` label. */
export const MANAGED_BY = 'iris';

/** What the request builders need besides the slice request. */
export interface TpuRequestSettings {
  readonly project: string;
  /** Cluster name, the `iris-cluster` label. */
  readonly cluster: string;
  readonly runtimeVersion: string;
  /** VPC network name or path. */
  readonly network: string;
  readonly subnetwork?: string | undefined;
  readonly enableExternalIps: boolean;
  /** Service account email the VMs run as; the project default when unset. */
  readonly serviceAccount?: string | undefined;
  /** npm package spec the startup script installs. */
  readonly irisPackage: string;
}

/** The TPU API v2 `Node` fields Iris sends and reads (the API has more). */
export interface TpuNode {
  readonly name?: string;
  readonly acceleratorType: string;
  readonly runtimeVersion: string;
  readonly networkConfig: { readonly network: string; readonly subnetwork?: string; readonly enableExternalIps: boolean };
  readonly serviceAccount?: { readonly email: string; readonly scope: readonly string[] };
  readonly schedulingConfig?: { readonly preemptible: boolean };
  readonly labels: Readonly<Record<string, string>>;
  readonly metadata: Readonly<Record<string, string>>;
  readonly state?: string;
}

/** The TPU API v2 `QueuedResource` fields Iris sends and reads. */
export interface TpuQueuedResource {
  readonly name?: string;
  readonly tpu: { readonly nodeSpec: readonly { readonly parent: string; readonly nodeId: string; readonly node: TpuNode }[] };
  readonly spot?: Record<string, never>;
  readonly guaranteed?: Record<string, never>;
  readonly state?: { readonly state?: string };
}

/** A request the platform sends: method, URL relative to the API endpoint, optional JSON body. */
export interface TpuApiRequest {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Path and query after the endpoint, e.g. `/v2/projects/p/locations/z/nodes?nodeId=x`. */
  readonly path: string;
  readonly body?: unknown;
}

/** GCP label values: lower case letters, digits, `-` and `_`, at most 63 characters. */
export function labelValue(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '-')
    .slice(0, 63);
}

/** `projects/{project}/locations/{zone}`. */
export function locationOf(project: string, zone: string): string {
  return `projects/${project}/locations/${zone}`;
}

/** Quotes `s` for a POSIX shell. */
function sh(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The VM startup script: installs Node 20 when missing and the worker package, then runs
 * `iris worker start` as a systemd unit (restarted on failure). Each VM reads its worker number
 * (`agent-worker-number`) and internal IP from the metadata server, so one script serves every VM
 * of the slice: worker id `<slice id>-<n>`, `--tpu-worker-id <n>`, advertised on its own IP.
 */
export function startupScript(request: SliceRequest, settings: Pick<TpuRequestSettings, 'irisPackage'>): string {
  const o = sliceWorkerOptions(request, 0, '/var/lib/iris-worker/cache');
  const fixed = [
    '--controller', o.controllerAddress,
    '--host', '0.0.0.0',
    '--cache-dir', o.cacheDir,
    '--attributes', Object.entries(o.attributes ?? {}).map(([k, v]) => `${k}=${v}`).join(','),
    ...(o.cpuMillicores !== undefined ? ['--cpu', String(o.cpuMillicores / 1000)] : []),
    ...(o.memoryBytes !== undefined ? ['--memory', String(o.memoryBytes)] : []),
    ...(o.diskBytes !== undefined ? ['--disk', String(o.diskBytes)] : []),
    ...(o.tpu ? ['--tpu', o.tpu.variant, '--tpu-name', o.tpu.name] : []),
  ];
  const env = request.authToken ? `--setenv=IRIS_AUTH_TOKEN=${sh(request.authToken)} ` : '';
  return [
    '#!/bin/bash',
    '# Written by the Iris gcp platform: starts one Iris worker on this TPU VM.',
    'set -euo pipefail',
    'md() { curl -fsS -H "Metadata-Flavor: Google" "http://metadata.google.internal/computeMetadata/v1/instance/$1"; }',
    'VM=$(md attributes/agent-worker-number 2>/dev/null || echo 0)',
    'IP=$(md network-interfaces/0/ip)',
    'if ! command -v node >/dev/null || [ "$(node -p "process.versions.node.split(\'.\')[0]")" -lt 20 ]; then',
    '  curl -fsSL https://deb.nodesource.com/setup_20.x | bash -',
    '  apt-get install -y nodejs',
    'fi',
    `npm install -g --no-audit --no-fund ${sh(settings.irisPackage)}`,
    'mkdir -p /var/lib/iris-worker',
    'systemctl stop iris-worker 2>/dev/null || true',
    `systemd-run --unit=iris-worker --property=Restart=on-failure ${env}--working-directory=/var/lib/iris-worker \\`,
    `  "$(command -v iris)" worker start ${fixed.map(sh).join(' ')} \\`,
    `  --worker-id ${sh(`${request.sliceId}-`)}"$VM" --advertise-host "$IP"${o.tpu ? ' --tpu-worker-id "$VM"' : ''}`,
    '',
  ].join('\n');
}

/** The `Node` for one slice: accelerator, runtime, network, labels and the startup script. */
export function tpuNode(request: SliceRequest, settings: TpuRequestSettings): TpuNode {
  const slice = request.group.slice;
  if (slice.kind !== 'tpu') throw new Error(`scale group "${request.group.name}" is not a TPU group`);
  return {
    acceleratorType: slice.tpu.name,
    runtimeVersion: settings.runtimeVersion,
    networkConfig: { network: settings.network, ...(settings.subnetwork ? { subnetwork: settings.subnetwork } : {}), enableExternalIps: settings.enableExternalIps },
    ...(settings.serviceAccount ? { serviceAccount: { email: settings.serviceAccount, scope: ['https://www.googleapis.com/auth/cloud-platform'] } } : {}),
    labels: {
      [GCP_LABELS.cluster]: labelValue(settings.cluster),
      [GCP_LABELS.scaleGroup]: labelValue(request.group.name),
      [GCP_LABELS.sliceId]: labelValue(request.sliceId),
      [GCP_LABELS.managedBy]: MANAGED_BY,
    },
    metadata: { 'startup-script': startupScript(request, settings) },
  };
}

/** `POST …/nodes?nodeId=<slice id>`: one TPU node (every VM of the slice) created as a unit. */
export function createNodeRequest(request: SliceRequest, settings: TpuRequestSettings): TpuApiRequest {
  const zone = request.group.zone!;
  const node = tpuNode(request, settings);
  const preemptible = request.group.slice.kind === 'tpu' && request.group.slice.preemptible;
  return {
    method: 'POST',
    path: `/v2/${locationOf(settings.project, zone)}/nodes?nodeId=${encodeURIComponent(request.sliceId)}`,
    body: preemptible ? { ...node, schedulingConfig: { preemptible: true } } : node,
  };
}

/**
 * `POST …/queuedResources?queuedResourceId=<slice id>`: a queued resource holding one node spec, so
 * GCP provisions every VM of the slice at once or none; preemptible groups ask for the spot tier.
 */
export function createQueuedResourceRequest(request: SliceRequest, settings: TpuRequestSettings): TpuApiRequest {
  const zone = request.group.zone!;
  const parent = locationOf(settings.project, zone);
  const preemptible = request.group.slice.kind === 'tpu' && request.group.slice.preemptible;
  const body: TpuQueuedResource = {
    tpu: { nodeSpec: [{ parent, nodeId: request.sliceId, node: tpuNode(request, settings) }] },
    ...(preemptible ? { spot: {} } : {}),
  };
  return { method: 'POST', path: `/v2/${parent}/queuedResources?queuedResourceId=${encodeURIComponent(request.sliceId)}`, body };
}

/** `DELETE …/queuedResources/<id>?force=true` (also deletes its node) or `DELETE …/nodes/<id>`. */
export function deleteRequest(project: string, zone: string, sliceId: string, queued: boolean): TpuApiRequest {
  const base = `/v2/${locationOf(project, zone)}`;
  return queued
    ? { method: 'DELETE', path: `${base}/queuedResources/${encodeURIComponent(sliceId)}?force=true` }
    : { method: 'DELETE', path: `${base}/nodes/${encodeURIComponent(sliceId)}` };
}

/** `GET …/nodes` or `…/queuedResources`, one page. */
export function listRequest(project: string, zone: string, what: 'nodes' | 'queuedResources', pageToken?: string): TpuApiRequest {
  return { method: 'GET', path: `/v2/${locationOf(project, zone)}/${what}?pageSize=500${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}` };
}

/**
 * A node's state as a slice status. Coming up (CREATING, STARTING, RESTARTING, REIMAGING, UNHIDING)
 * and REPAIRING are `booting`: the autoscaler then goes by its workers, and a READY slice whose workers
 * drop during a repair turns UNHEALTHY on its own. READY is `running`; PREEMPTED is `preempted`;
 * DELETING, STOPPING, STOPPED, TERMINATED, HIDING and HIDDEN are `failed` (the slice will not serve).
 */
export function nodeStatus(state: string | undefined): PlatformSlice['status'] {
  switch (state) {
    case 'READY':
      return 'running';
    case 'PREEMPTED':
      return 'preempted';
    case 'DELETING':
    case 'STOPPING':
    case 'STOPPED':
    case 'TERMINATED':
    case 'HIDING':
    case 'HIDDEN':
      return 'failed';
    default:
      return 'booting';
  }
}

/**
 * A queued resource's state as a slice status: waiting or provisioning is `booting`, ACTIVE is
 * `running` (its node's own state then refines it), SUSPENDING/SUSPENDED (capacity taken back) is
 * `preempted`, FAILED and DELETING are `failed`.
 */
export function queuedResourceStatus(state: string | undefined): PlatformSlice['status'] {
  switch (state) {
    case 'ACTIVE':
      return 'running';
    case 'SUSPENDING':
    case 'SUSPENDED':
      return 'preempted';
    case 'FAILED':
    case 'DELETING':
      return 'failed';
    default:
      return 'booting';
  }
}

/** Whether labels mark a resource of this cluster, and which slice and group it is. */
export function ownedSlice(labels: Readonly<Record<string, string>> | undefined, cluster: string): { sliceId: string; group: string } | undefined {
  if (!labels || labels[GCP_LABELS.managedBy] !== MANAGED_BY || labels[GCP_LABELS.cluster] !== labelValue(cluster)) return undefined;
  const sliceId = labels[GCP_LABELS.sliceId];
  const group = labels[GCP_LABELS.scaleGroup];
  return sliceId && group ? { sliceId, group } : undefined;
}
