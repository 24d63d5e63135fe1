import { join } from 'node:path';
import { prefixJoin } from '@marin/rigging';
import { startController } from './start-controller.js';
import type { ControllerHandle, ControllerOptions } from './start-controller.js';
import { IrisError } from '../errors.js';
import { createGcpPlatform } from '../autoscaler/platforms/gcp-platform.js';
import { createLocalPlatform } from '../autoscaler/platforms/local-platform.js';
import { createManualPlatform } from '../autoscaler/platforms/manual-platform.js';
import type { Platform } from '../autoscaler/platforms/platform.js';
import { Autoscaler } from '../autoscaler/autoscaler.js';
import { platformNameOf } from '../autoscaler/cluster-config.js';
import type { ClusterConfig, PlatformConfig } from '../autoscaler/cluster-config.js';

function createPlatform(name: string, config: PlatformConfig, cluster: ClusterConfig): Platform {
  switch (config.kind) {
    case 'local':
      return createLocalPlatform({ workDir: config.work_dir ?? join(cluster.controller.state_dir, 'local-workers', name), maxWorkers: config.max_workers });
    case 'manual':
      return createManualPlatform({
        hosts: config.hosts,
        user: config.user,
        keyFile: config.key_file,
        port: config.port,
        irisCommand: config.iris_command,
        remoteDir: config.remote_dir,
        sshOptions: config.ssh_options,
      });
    case 'gcp':
      return createGcpPlatform({
        project: config.project,
        zones: [...new Set(cluster.scale_groups.filter((g) => platformNameOf(cluster, g) === name).flatMap((g) => (g.zone ? [g.zone] : [])))],
        cluster: config.cluster,
        runtimeVersion: config.runtime_version,
        queuedResources: config.queued_resources,
        irisPackage: config.iris_package,
        network: config.network,
        ...(config.subnetwork ? { subnetwork: config.subnetwork } : {}),
        enableExternalIps: config.enable_external_ips,
        ...(config.service_account ? { serviceAccount: config.service_account } : {}),
        endpoint: config.tpu_api_endpoint,
      });
    default:
      throw new IrisError('IRIS_INVALID_ARGUMENT', `cluster config platforms.${name}: platform kind "${(config as { kind: string }).kind}" is not available in this build`, { details: { field: `platforms.${name}.kind` } });
  }
}

/**
 * Starts a cluster from its config: the controller (restoring its database from `remote_state_dir`
 * when needed, checkpointing every `checkpoint_interval_ms`) and the autoscaler, which creates every
 * worker through the groups' platforms. Closing the handle deletes the slices, then stops the controller.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for an unusable platform; whatever `startController` throws.
 */
export async function startCluster(config: ClusterConfig, overrides: Pick<ControllerOptions, 'authToken' | 'warn' | 'dashboardBind' | 'insecure'> = {}): Promise<ControllerHandle> {
  const platforms = new Map<string, Platform>();
  for (const [name, p] of Object.entries(config.platforms)) platforms.set(name, createPlatform(name, p, config));
  const platformOf = new Map(config.scale_groups.map((g) => [g.name, platforms.get(platformNameOf(config, g))!]));
  const platformNames = new Map(config.scale_groups.map((g) => [g.name, platformNameOf(config, g)]));
  const closePlatforms = () => Promise.all([...platforms.values()].map((p) => p.close()));
  try {
    return await startController({
      ...overrides,
      bind: config.controller.address,
      stateDir: config.controller.state_dir,
      remoteStateDir: config.controller.remote_state_dir,
      logArchive: config.controller.log_archive ?? (config.controller.remote_state_dir ? prefixJoin(config.controller.remote_state_dir, 'logs') : join(config.controller.state_dir, 'log-archive')),
      logRetentionMs: config.controller.log_retention_ms,
      checkpointIntervalMs: config.controller.checkpoint_interval_ms,
      reconcileIntervalMs: config.controller.reconcile_interval_ms,
      attach: async (controller) => {
        const autoscaler = new Autoscaler({
          state: controller.state,
          groups: config.scale_groups,
          timings: config.autoscaler,
          platformOf,
          platformNameOf: platformNames,
          controllerAddress: config.controller.advertise_address ?? controller.address,
          authToken: overrides.authToken,
          warn: overrides.warn,
        });
        await autoscaler.start();
        return {
          status: () => autoscaler.status(),
          close: async () => {
            await autoscaler.close({ deleteSlices: true });
            await closePlatforms();
          },
        };
      },
    });
  } catch (e) {
    await closePlatforms();
    throw e;
  }
}
