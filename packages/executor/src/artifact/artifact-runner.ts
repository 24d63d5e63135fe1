import { RemoteCallable } from '@marin/fray';
import type { Client } from '@marin/fray';
import { filesystemFor, leaseTimings, mapLimit, marinPrefix, parsePyJson, pyJsonDumps, regionFromPrefix } from '@marin/rigging';
import type { LeaseTimings } from '@marin/rigging';
import { ExecutorError } from '../errors.js';
import { stderrLogger } from '../logger.js';
import type { ExecutorLogger } from '../logger.js';
import { scheduleDag } from '../run/scheduler.js';
import { runUnderLease } from '../status/lease-loop.js';
import { GC_TOMBSTONE_FILE, reclaimFromGc } from '../status/gc-tombstone.js';
import { fileUnder, INFO_FILE } from '../status/status-store.js';
import { isFailedStatus, STATUS_SUCCESS } from '../status/status.js';
import type { ArtifactStep } from './artifact-step.js';
import { loadArtifact, resultPayload } from './artifact-type.js';
import type { LoadedArtifact } from './artifact-type.js';
import { canonicalJson } from './canonical-json.js';
import { checkDrift } from './drift.js';
import { artifactStepInfo, writeArtifactExperiment } from './experiment-file.js';
import { lowerArtifacts } from './lower.js';
import type { ArtifactNode } from './lower.js';
import { captureProvenance } from './provenance.js';
import type { Provenance } from './provenance.js';
import { makeRecord, readRecord, STEP_RUNNER_EXECUTOR_VERSION, writeRecord } from './record.js';
import type { ArtifactRecord } from './record.js';
import { bodyOf, checkRemoteBodies, runRemoteBody } from './remote-body.js';
import type { ArtifactReentryTarget, RemoteBodyOptions } from './remote-body.js';
import { readStatuses, readStatusFast, readTextIfExists } from './status-scan.js';
import { StepContext } from './step-context.js';
import { isMutableVersion } from './version.js';

/** Options of {@link runArtifacts}. */
export interface ArtifactRunOptions {
  /** The storage prefix. @default marinPrefix() (`MARIN_PREFIX`, …) */
  prefix?: string;
  /** The region steps see as `ctx.region`. @default the region of a `gs://` prefix, else null */
  region?: string | null;
  /** At most this many steps run at once. @default 8 */
  maxConcurrent?: number;
  /** Rerun a step whose status is FAILED instead of refusing. @default true */
  forceRunFailed?: boolean;
  /** @default stderrLogger */
  logger?: ExecutorLogger;
  /** Lease heartbeat, staleness and poll interval. @default leaseTimings() */
  timings?: LeaseTimings;
  /** Write the run's experiment file under `<prefix>/experiments` (what keeps the outputs alive for `marin gc`). @default true */
  experimentFile?: boolean;
  /** The Fray client remote bodies (`run: remote(…)`) are submitted to. @default currentClient() at each submission */
  client?: Client;
  /** How a remote backend's worker re-enters the experiment (`artifactMain` sets it). @default null: remote backends refused */
  reentry?: ArtifactReentryTarget | null;
  /** The bundle root re-entry paths are relative to. @default the git top level (or `IRIS_WORKDIR` in an Iris task) */
  workspace?: string;
}

/** What a run did with each artifact. */
export type ArtifactOutcome = 'ran' | 'skipped' | 'pruned' | 'failed' | 'blocked' | 'not-started';

/** A finished run's per-artifact outcomes, by `name@version`. */
export interface ArtifactRunReport {
  prefix: string;
  outcomes: Map<string, ArtifactOutcome>;
  /**
   * The records the drift check read for artifacts served from cache, by output path (`null`: none there); loading
   * those artifacts after the run reuses them instead of reading each record twice.
   */
  servedRecords: ReadonlyMap<string, ArtifactRecord | null>;
}

async function ensureStepRunnerInfo(node: ArtifactNode): Promise<void> {
  const url = fileUnder(node.outputPath, INFO_FILE);
  const fs = filesystemFor(url);
  if (await fs.exists(url)) return;
  const step = artifactStepInfo(node);
  const info = {
    executor_version: STEP_RUNNER_EXECUTOR_VERSION,
    name: step.name,
    fn_name: step.fn_name,
    config: step.config,
    description: null,
    override_output_path: step.override_output_path,
    version: step.version,
    dependencies: step.dependencies,
    output_path: step.output_path,
  };
  await fs.writeText(url, pyJsonDumps(info, { indent: 2 }));
}

/** Runs a step's body and writes its record (unless pinned): the work done while holding the lease. */
async function buildArtifact(
  node: ArtifactNode,
  prefix: string,
  region: string | null,
  provenance: () => Promise<Provenance>,
  signal: AbortSignal,
  remote: RemoteBodyOptions & { logger: ExecutorLogger },
): Promise<void> {
  const h = node.handle as ArtifactStep<object, unknown>;
  let config: Record<string, unknown> | null;
  let result: Record<string, unknown> | null = null;
  let source: string | null = null;
  if (h.adoptSource !== null) {
    source = h.path(prefix);
    if (!(await filesystemFor(source).exists(source))) {
      throw new ExecutorError('EXECUTOR_ARTIFACT_NOT_FOUND', `cannot adopt ${h.id}: no data at ${source}`, { details: { step: h.id, source } });
    }
    config = h.adoptConfig;
  } else {
    const ctx = StepContext.forRun({ outputPath: node.outputPath, prefix, region, runtimeArgs: h.runtimeArgs, deps: h.deps });
    const built = await h.buildConfig(ctx);
    const canonical = canonicalJson(built);
    const value = RemoteCallable.is(h.run)
      ? await runRemoteBody(h, { outputPath: node.outputPath, prefix, config: built, canonical, signal, logger: remote.logger }, remote)
      : await bodyOf(h)(built);
    config = parsePyJson(canonical) as Record<string, unknown> | null;
    result = resultPayload(h.artifactType, value);
  }
  if (h.overridePath !== null) return;
  const launch = await provenance();
  // Fencing: a body that outlived a lost lease writes no record (the runner already stopped waiting for it).
  signal.throwIfAborted();
  await writeRecord(
    makeRecord({
      name: h.name,
      version: h.version,
      fingerprint: node.fingerprint,
      result_type: h.artifactType.resultType,
      output_path: node.outputPath,
      deps: node.depRefs,
      config,
      source,
      result,
      fingerprint_payload: node.payload,
      provenance: launch,
    }),
  );
}

/** Whether `marin gc --delete` has marked an output (one cheap existence check: a local miss is a `stat`). */
async function isMarkedByGc(outputPath: string): Promise<boolean> {
  return (await readTextIfExists(fileUnder(outputPath, GC_TOMBSTONE_FILE))) !== null;
}

/** Marks which nodes are already built (non-mutable and SUCCESS); their subtrees need not run. */
async function selectNodes(
  nodes: readonly ArtifactNode[],
  roots: readonly ArtifactNode[],
): Promise<{ launch: ArtifactNode[]; pruned: Set<ArtifactNode>; statuses: Map<ArtifactNode, string | null>; marked: Set<ArtifactNode> }> {
  const read = await readStatuses(nodes.map((n) => n.outputPath));
  const statuses = new Map<ArtifactNode, string | null>(nodes.map((n, i) => [n, read[i] ?? null]));
  // A SUCCESS output `marin gc --delete` has marked may be gone by launch: it is selected (and so its inputs) as
  // if it had not succeeded, and launch reclaims it (src/gc/DESIGN.md).
  const marked = new Set<ArtifactNode>();
  await mapLimit(nodes, 32, async (n) => {
    if (statuses.get(n) === STATUS_SUCCESS && !isMutableVersion(n.handle.version) && (await isMarkedByGc(n.outputPath))) marked.add(n);
  });
  const pruned = new Set<ArtifactNode>();
  const seen = new Set<ArtifactNode>();
  const launch: ArtifactNode[] = [];
  const visit = (n: ArtifactNode): void => {
    if (seen.has(n)) return;
    seen.add(n);
    if (!isMutableVersion(n.handle.version) && statuses.get(n) === STATUS_SUCCESS && !marked.has(n)) {
      pruned.add(n);
    } else {
      for (const d of n.deps) visit(d);
    }
    launch.push(n);
  };
  for (const r of roots) visit(r);
  return { launch, pruned, statuses, marked };
}

/**
 * Builds artifact graphs on the shared status/lease protocol (Marin's `run` without loading): lowers the handles
 * (fingerprints and identity checks before anything is written), prunes the subtrees of built artifacts, then runs
 * the rest eagerly with at most `maxConcurrent` at once. Each step: drift check (a pinned mismatch refuses), a
 * SUCCESS non-mutable output is served, otherwise the step runs under `.executor_status.lock` with heartbeats and
 * fencing, writes `.artifact.json` (unless pinned), then SUCCESS.
 *
 * @throws {ExecutorError} the lowering errors (nothing written); EXECUTOR_STEP_FAILED `<n> step(s) failed` with
 *   `details.failures`; EXECUTOR_PREVIOUSLY_FAILED with `forceRunFailed: false`
 */
export async function buildArtifacts(handles: readonly ArtifactStep[], options: ArtifactRunOptions = {}): Promise<ArtifactRunReport> {
  const maxConcurrent = options.maxConcurrent ?? 8;
  if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) {
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `max_concurrent must be a positive integer, got ${maxConcurrent}`);
  }
  const prefix = options.prefix ?? (await marinPrefix());
  const region = options.region !== undefined ? options.region : regionFromPrefix(prefix);
  const logger = options.logger ?? stderrLogger;
  const timings = options.timings ?? leaseTimings();
  const forceRunFailed = options.forceRunFailed ?? true;
  const lowered = await lowerArtifacts(handles, prefix);
  const { nodes } = lowered;
  const remoteOptions: RemoteBodyOptions & { logger: ExecutorLogger } = {
    logger,
    reentry: options.reentry ?? null,
    ...(options.client === undefined ? {} : { client: options.client }),
    ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
  };
  checkRemoteBodies(nodes.map((n) => n.handle), remoteOptions);
  const roots = [...new Set(lowered.roots)];
  // The experiment file comes before the statuses and gc marks are read: a gc whose re-check runs after this write
  // keeps these outputs, and one whose marks came earlier is seen by the read below (src/gc/DESIGN.md), so one
  // tombstone check per built artifact suffices.
  if (options.experimentFile !== false) await writeArtifactExperiment(prefix, nodes, logger);
  const { launch, pruned, statuses, marked } = await selectNodes(nodes, roots);
  // Captured once, when the first artifact is built (six git commands): a run that builds nothing spawns none.
  let launchProvenance: Promise<Provenance> | undefined;
  const provenance = (): Promise<Provenance> => (launchProvenance ??= captureProvenance());
  // Records read by the drift check of artifacts served from cache, for the load that follows the run.
  const served = new Map<string, ArtifactRecord | null>();
  const readServed = async (outputPath: string): Promise<ArtifactRecord | null> => {
    const record = await readRecord(outputPath, true);
    served.set(outputPath, record);
    return record;
  };

  const execute = async (node: ArtifactNode): Promise<'ran' | 'skipped'> => {
    const target = { id: node.id, version: node.handle.version, outputPath: node.outputPath, fingerprint: node.fingerprint, payload: node.payload, expectedFingerprint: node.handle.expectedFingerprint };
    // Marked at selection: reclaim before serving. Later (a worker that completed it meanwhile): check again.
    let checked = false;
    const reclaim = async (): Promise<'reuse' | 'gone'> => {
      const isMarked = checked ? await isMarkedByGc(node.outputPath) : marked.has(node);
      checked = true;
      return isMarked ? reclaimFromGc({ outputPath: node.outputPath, label: node.id, timings, logger }) : 'reuse';
    };
    if (pruned.has(node)) {
      await checkDrift(target, logger, readServed);
      const status = (await reclaim()) === 'reuse' ? await readStatusFast(node.outputPath, true) : null;
      if (status !== STATUS_SUCCESS) {
        throw new ExecutorError('EXECUTOR_STEP_FAILED', `Step ${node.id}: cached output disappeared after its inputs were pruned (status=${status}); rerun to rebuild it and its inputs`, {
          details: { step: node.id, reason: 'pruned-output-vanished' },
        });
      }
      logger.info(`Skip ${node.id}: already succeeded (pruned subtree)`);
      return 'skipped';
    }
    const { mutable } = await checkDrift(target, logger, readServed);
    let status = statuses.get(node) ?? (await readStatusFast(node.outputPath));
    if (status === STATUS_SUCCESS && !mutable) {
      if ((await reclaim()) === 'reuse') {
        logger.info(`Skip ${node.id}: already succeeded`);
        return 'skipped';
      }
      status = null; // collected by gc meanwhile: build it again
    }
    if (!forceRunFailed && isFailedStatus(status)) {
      throw new ExecutorError('EXECUTOR_PREVIOUSLY_FAILED', `Step ${node.id} failed previously. Status: ${status}`, { details: { step: node.id, status } });
    }
    served.delete(node.outputPath); // built or waited for now: the record is read again when loaded
    await ensureStepRunnerInfo(node);
    const runOnce = (): Promise<'ran' | 'skipped'> => runUnderLease({
      label: node.id,
      outputPath: node.outputPath,
      timings,
      forceRunFailed,
      forceRerun: mutable,
      logger,
      initialStatus: null,
      onState: () => undefined,
      verifyHit: async () => {
        await checkDrift(target, logger);
      },
      attempt: (signal) => buildArtifact(node, prefix, region, provenance, signal, remoteOptions),
    });
    let outcome = await runOnce();
    // Completed by another worker meanwhile: reuse it like any SUCCESS output (gc may have marked it).
    while (outcome === 'skipped' && !mutable && (await reclaim()) === 'gone') outcome = await runOnce();
    return outcome;
  };

  const result = await scheduleDag({
    nodes: launch,
    dependencies: (n) => (pruned.has(n) ? [] : n.deps),
    maxConcurrent,
    label: (n) => n.id,
    execute,
    abortsRun: (e) => ExecutorError.hasCode(e, 'EXECUTOR_PREVIOUSLY_FAILED') || ExecutorError.hasCode(e, 'EXECUTOR_FINGERPRINT_MISMATCH'),
  });
  if (result.abortError !== undefined) throw result.abortError;
  const outcomes = new Map<string, ArtifactOutcome>();
  for (const [n, o] of result.outcomes) outcomes.set(n.id, pruned.has(n) && o === 'skipped' ? 'pruned' : o);
  if (result.failures.length > 0) {
    const first = result.failures[0]!;
    throw new ExecutorError('EXECUTOR_STEP_FAILED', `${result.failures.length} step(s) failed`, {
      cause: first.error,
      details: { failures: result.failures.map((f) => f.node.id), outcomes: Object.fromEntries(outcomes) },
    });
  }
  return { prefix, outcomes, servedRecords: served };
}

/** Builds `handles` and loads each one's typed artifact, in argument order (Marin's `run`). */
export async function runArtifacts<T extends object>(handles: readonly ArtifactStep<T>[], options: ArtifactRunOptions = {}): Promise<LoadedArtifact<T>[]> {
  const report = await buildArtifacts(handles as readonly ArtifactStep[], options);
  return Promise.all(
    handles.map((h) => {
      const path = h.path(report.prefix);
      const record = report.servedRecords.get(path);
      return loadArtifact(h.artifactType, path, record === undefined ? undefined : { record });
    }),
  );
}

/** Builds one handle and loads its typed artifact (Marin's `resolve`). */
export async function resolveArtifact<T extends object>(handle: ArtifactStep<T>, options: ArtifactRunOptions = {}): Promise<LoadedArtifact<T>> {
  const [loaded] = await runArtifacts([handle], options);
  return loaded as LoadedArtifact<T>;
}
