import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { IrisError } from '../errors.js';
import { findTpuTopology } from '../core/tpu-topology.js';

const ms = z.number().int().positive();
const attributeValue = z.union([z.string(), z.number()]);

/** Per-VM resources of a scale group's workers. */
export const GroupResourcesSchema = z.strictObject({
  /** CPU cores per VM (0.5 = 500 millicores). */
  cpu: z.number().positive(),
  /** Memory per VM in bytes. */
  memory_bytes: z.number().int().positive(),
  /** Disk per VM in bytes. @default 0 (what the worker measures) */
  disk_bytes: z.number().int().nonnegative().default(0),
});

/**
 * The shape of one slice: a CPU host, or a TPU slice of a real variant (one worker per VM). A TPU
 * variant is looked up in the topology table here, once: the parsed slice carries the canonical
 * `variant` and its row as `tpu`, which the autoscaler and the platforms read.
 */
export const SliceTemplateSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('cpu') }),
  z
    .strictObject({
      kind: z.literal('tpu'),
      /** A variant of the TPU table, e.g. `v5litepod-16` (`v5e-16` is normalised). */
      variant: z.string().min(1),
      /** Ask GCP for preemptible (spot) capacity. @default false */
      preemptible: z.boolean().default(false),
    })
    .transform((slice, ctx) => {
      const tpu = findTpuTopology(slice.variant);
      if (tpu === undefined) {
        ctx.addIssue({ code: 'custom', path: ['variant'], message: `unknown TPU type "${slice.variant}"` });
        return z.NEVER;
      }
      return { ...slice, variant: tpu.name, tpu };
    }),
]);

/** One scale group: identical slices the autoscaler creates and deletes as a unit. */
export const ScaleGroupSchema = z.strictObject({
  /** Unique name; `[a-z0-9-]`, used in slice ids and platform labels. */
  name: z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, { message: 'must match [a-z][a-z0-9-]{0,39}' }),
  /** Name of an entry in `platforms`. @default the only platform when there is one */
  platform: z.string().min(1).optional(),
  slice: SliceTemplateSchema,
  resources: GroupResourcesSchema,
  /** Extra worker attributes (region, zone, pool, taints…) every worker of the group advertises. @default {} */
  attributes: z.record(z.string().min(1), attributeValue).default({}),
  /** Zone for platforms that need one (gcp). */
  zone: z.string().min(1).optional(),
  /** Waterfall order: demand goes to the lowest number that can hold it, then the next. @default 100 */
  priority: z.number().int().default(100),
  /** @default 0 */
  min_slices: z.number().int().nonnegative().default(0),
  /** @default 1 */
  max_slices: z.number().int().nonnegative().default(1),
  /** Idle slices kept ready on top of demand. @default 0 */
  buffer_slices: z.number().int().nonnegative().default(0),
});

/** Platform settings by kind. */
export const PlatformConfigSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('local'),
    /** Worker processes this machine may run over all local slices; creates beyond it fail (as a cloud quota would). @default 64 */
    max_workers: z.number().int().nonnegative().default(64),
    /** Where worker cache dirs go. @default `<state_dir>/local-workers` */
    work_dir: z.string().min(1).optional(),
  }),
  z.strictObject({
    kind: z.literal('manual'),
    /** Pre-existing hosts, one slice per host (CPU groups) or `vm_count` hosts per slice (TPU groups). */
    hosts: z.array(z.string().min(1)).min(1),
    /** SSH user. */
    user: z.string().min(1),
    /** Private key file for `ssh -i`. */
    key_file: z.string().min(1),
    /** @default 22 */
    port: z.number().int().min(1).max(65535).default(22),
    /** Command that runs the `iris` CLI on the hosts. @default "iris" */
    iris_command: z.string().min(1).default('iris'),
    /** Directory on the hosts for worker caches, logs and pid files. @default "/tmp/iris-worker" */
    remote_dir: z.string().min(1).default('/tmp/iris-worker'),
    /** Extra `ssh` arguments, e.g. `["-o", "UserKnownHostsFile=/etc/iris/known_hosts"]`. @default ["-o", "StrictHostKeyChecking=accept-new"] */
    ssh_options: z.array(z.string().min(1)).default(['-o', 'StrictHostKeyChecking=accept-new']),
  }),
  z.strictObject({
    kind: z.literal('gcp'),
    project: z.string().min(1),
    /** TPU runtime image. @default "v2-alpha-tpuv5-lite" */
    runtime_version: z.string().min(1).default('v2-alpha-tpuv5-lite'),
    /** Create slices as queued resources (atomic, all VMs or none). @default true */
    queued_resources: z.boolean().default(true),
    /** npm package spec the startup script installs on each VM. @default "@marin/iris" */
    iris_package: z.string().min(1).default('@marin/iris'),
    /** Cluster name, the `iris-cluster` label of every node; only nodes with it are adopted. @default "iris" */
    cluster: z.string().regex(/^[a-z][a-z0-9_-]{0,62}$/, { message: 'must match [a-z][a-z0-9_-]{0,62}' }).default('iris'),
    /** VPC network. @default "default" */
    network: z.string().min(1).default('default'),
    subnetwork: z.string().min(1).optional(),
    /** External IPs on the VMs (the startup script downloads Node and the worker package). @default true */
    enable_external_ips: z.boolean().default(true),
    /** Service account email the VMs run as. @default the project's default compute account */
    service_account: z.string().min(1).optional(),
    /** TPU API root. @default "https://tpu.googleapis.com" */
    tpu_api_endpoint: z.string().url().default('https://tpu.googleapis.com'),
  }),
]);

/** Autoscaler timings (all in ms). */
export const AutoscalerTimingsSchema = z.strictObject({
  /** @default 10000 */
  evaluation_interval_ms: ms.default(10_000),
  /** Unmet demand must persist this long before a slice is created. @default 60000 */
  scale_up_delay_ms: z.number().int().nonnegative().default(60_000),
  /** A READY slice idle this long is deleted (down to `min_slices` + `buffer_slices`). @default 300000 */
  scale_down_idle_ms: z.number().int().nonnegative().default(300_000),
  /** A slice not READY this long after its create is deleted as failed. @default 1800000 */
  startup_grace_ms: ms.default(30 * 60_000),
  /** First delay after a failed create; doubles per consecutive failure. @default 60000 */
  backoff_initial_ms: ms.default(60_000),
  /** @default 1800000 */
  backoff_max_ms: ms.default(30 * 60_000),
  /** Failed creates within `churn_window_ms` that quarantine a group for `backoff_max_ms`. @default 5 */
  churn_failures: z.number().int().positive().default(5),
  /** @default 3600000 */
  churn_window_ms: ms.default(3_600_000),
  /** Create requests in flight over all groups. @default 8 */
  max_concurrent_creates: z.number().int().positive().default(8),
});

/** The controller part of a cluster config. */
export const ControllerSectionSchema = z.strictObject({
  /** `host:port` the controller serves on. @default "127.0.0.1:10000" */
  address: z.string().regex(/^.+:\d+$/, { message: 'must be host:port' }).default('127.0.0.1:10000'),
  /** Address workers dial; set it when they run on other machines. @default `address` */
  advertise_address: z.string().regex(/^.+:\d+$/, { message: 'must be host:port' }).optional(),
  /** Local directory of `controller.sqlite3`. */
  state_dir: z.string().min(1),
  /** Any rigging URL (`gs://bucket/iris`, `file:///…`, a local path) where checkpoints go. */
  remote_state_dir: z.string().min(1).optional(),
  /**
   * Any rigging URL or a local path where task logs are archived when their job ends, read back by
   * `iris job logs` and the dashboard once pruned from the database.
   * @default `<remote_state_dir>/logs` with a remote state dir, else `<state_dir>/log-archive`
   */
  log_archive: z.string().min(1).optional(),
  /** How long archived log lines stay in the database after their job ended. @default 86400000 (a day) */
  log_retention_ms: z.number().int().nonnegative().default(86_400_000),
  /** @default 3600000 (hourly); 0 = only on demand */
  checkpoint_interval_ms: z.number().int().nonnegative().default(3_600_000),
  /** Control tick interval. @default 1000 */
  reconcile_interval_ms: ms.default(1000),
});

/** A whole cluster config file, as `iris cluster start --config` reads it. */
export const ClusterConfigSchema = z
  .strictObject({
    controller: ControllerSectionSchema,
    platforms: z.record(z.string().min(1), PlatformConfigSchema),
    scale_groups: z.array(ScaleGroupSchema).default([]),
    autoscaler: AutoscalerTimingsSchema.default(AutoscalerTimingsSchema.parse({})),
  })
  .superRefine((config, ctx) => {
    const names = new Set<string>();
    const platformNames = Object.keys(config.platforms);
    config.scale_groups.forEach((g, i) => {
      if (names.has(g.name)) ctx.addIssue({ code: 'custom', path: ['scale_groups', i, 'name'], message: `duplicate scale group "${g.name}"` });
      names.add(g.name);
      if (g.min_slices > g.max_slices) ctx.addIssue({ code: 'custom', path: ['scale_groups', i, 'min_slices'], message: `min_slices ${g.min_slices} exceeds max_slices ${g.max_slices}` });
      const platform = g.platform ?? (platformNames.length === 1 ? platformNames[0] : undefined);
      if (platform === undefined || !(platform in config.platforms)) {
        ctx.addIssue({ code: 'custom', path: ['scale_groups', i, 'platform'], message: `names no entry of platforms (${platformNames.join(', ') || 'none'})` });
      }
      if (platform !== undefined && config.platforms[platform]?.kind === 'gcp') {
        if (g.slice.kind !== 'tpu') ctx.addIssue({ code: 'custom', path: ['scale_groups', i, 'slice', 'kind'], message: 'a gcp platform creates TPU slices only' });
        if (g.zone === undefined) ctx.addIssue({ code: 'custom', path: ['scale_groups', i, 'zone'], message: 'required for a gcp platform' });
      }
    });
  });

/** What a config file holds (defaults optional). */
export type ClusterConfigInput = z.input<typeof ClusterConfigSchema>;
/** A validated cluster config with defaults filled in. */
export type ClusterConfig = z.output<typeof ClusterConfigSchema>;
/** One validated scale group. */
export type ScaleGroupConfig = z.output<typeof ScaleGroupSchema>;
/** One validated platform entry. */
export type PlatformConfig = z.output<typeof PlatformConfigSchema>;
/** Validated autoscaler timings. */
export type AutoscalerTimings = z.output<typeof AutoscalerTimingsSchema>;

/**
 * Validates a cluster config object.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT naming the first bad field (`scale_groups.1.max_slices: …`), all issues in `details.issues`.
 */
export function parseClusterConfig(raw: unknown): ClusterConfig {
  const parsed = ClusterConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || '(root)';
    throw new IrisError('IRIS_INVALID_ARGUMENT', `cluster config ${field}: ${issue?.message}`, { details: { field, issues: parsed.error.issues } });
  }
  return parsed.data;
}

/**
 * Reads and validates a YAML cluster config file.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for unreadable YAML or a bad field.
 */
export function loadClusterConfig(path: string): ClusterConfig {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `cannot read cluster config "${path}"`, { cause: e });
  }
  return parseClusterConfig(raw);
}

/** The platform entry a group runs on (validated to exist). */
export function platformNameOf(config: ClusterConfig, group: ScaleGroupConfig): string {
  return group.platform ?? Object.keys(config.platforms)[0]!;
}
