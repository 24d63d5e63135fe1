/**
 * @packageDocumentation
 * `@marin/executor`: a DAG of `ExecutorStep`s with versions, hashes and output paths byte-compatible
 * with Python Marin, run with skipping of completed outputs and a status/lease protocol shared with
 * other executors. See README.md.
 *
 * @example
 * ```ts
 * import { Executor, ExecutorStep, versioned } from '@marin/executor';
 *
 * const data = new ExecutorStep({ name: 'hello_world/data', config: {}, fn: async (_c, ctx) => { ... } });
 * const stats = new ExecutorStep({ name: 'hello_world/stats', config: { input_path: data, n: versioned(3) }, fn: ... });
 * const paths = await new Executor({ prefix: '/tmp/marin' }).run([stats]);
 * paths.get(data); // '/tmp/marin/hello_world/data-d50b06'
 * ```
 */
export { ExecutorError } from './errors.js';
export type { ExecutorErrorCode } from './errors.js';
export { FloatValue, float } from '@marin/rigging';
export {
  ExecutorStep,
  InputName,
  InputNameEvent,
  MirroredValue,
  OutputName,
  THIS_OUTPUT_PATH,
  VersionedEvent,
  VersionedValue,
  ensureVersioned,
  getExecutorStep,
  joinName,
  mirrored,
  outputPathOf,
  pathJoin,
  thisOutputPath,
  unwrapVersionedValue,
  upstreamSteps,
  versioned,
  visitConfig,
  visitConfigRaw,
  walkConfig,
} from './dag/index.js';
export type { ConfigEvent, ConfigVisitor, ExecutorStepOptions, MirroredOptions, Resolved, StepContext, StepFn, StepProgress, StepRemoteCallable } from './dag/index.js';
export { silentLogger, stderrLogger } from './logger.js';
export type { ExecutorLogger } from './logger.js';
export { MAX_INLINE_DEPTH, VersionGraph, collectDependenciesAndVersion, computeOutputPath, hash6 } from './versioning/index.js';
export type { CollectedDependencies, ComputeOutputPathOptions, VersionGraphOptions, VersionObject } from './versioning/index.js';
export {
  MIRROR_SCHEME,
  absolutePrefix,
  hasScheme,
  instantiateConfig,
  makePrefixAbsolute,
  maxMirrorBudgetGb,
  mirrorUrlForInput,
  resolveLocalPlaceholders,
  stripFloatValues,
  unresolvedOutputNameError,
} from './resolution/index.js';
export type { InstantiateConfigOptions } from './resolution/index.js';
export { Executor } from './executor.js';
export type { ExecutorOptions, StepEntry } from './executor-options.js';
export type { RunOptions } from './run/run-options.js';
export { planSelection } from './run/step-selection.js';
export type { Selection, SelectionInput } from './run/step-selection.js';
export { causeChain, describeFailure } from './run/run-report.js';
export type { FailureReport, RunReport, StepOutcome, StepReport } from './run/run-report.js';
export { InlineStepRunner, callStepFunction, isRemoteStep } from './run/step-runner.js';
export type { StepInvocation, StepRunner } from './run/step-runner.js';
export { FrayStepRunner } from './run/fray-step-runner.js';
export type { FrayStepRunnerOptions, StepReentryTarget } from './run/fray-step-runner.js';
export { DispatchStepRunner } from './run/dispatch-step-runner.js';
export type { DispatchStepRunnerOptions } from './run/dispatch-step-runner.js';
export { RemoteCallable, remote } from '@marin/fray';
export type { RemoteOptions } from '@marin/fray';
export { findStepByOutputPath, runStepWorker } from './main/run-step-worker.js';
export type { RunStepWorkerOptions } from './main/run-step-worker.js';
export { STATUS_DEP_FAILED, STATUS_FAILED, STATUS_RUNNING, STATUS_SUCCESS, parseStatusText } from './status/status.js';
export type { StepStatus } from './status/status.js';
export { readStatus, writeStatus } from './status/status-store.js';
export { executorMain } from './main/executor-main.js';
export type { ExecutorMainOptions } from './main/executor-main.js';
export { EXECUTOR_USAGE, executorUsage, parseExecutorArgs } from './main/cli-args.js';
export type { ExecutorArgs } from './main/cli-args.js';
export type { ProgressMode } from './progress/progress-mode.js';
export { planToJson } from './plan/explain.js';
export type { PlanAction, StepPlan, StepPlanJson } from './plan/explain.js';
export { normalizeOutputPath, planGc } from './gc/gc-plan.js';
export type { GcCandidate, GcExperiment, GcOptions, GcOutsideReference, GcPlan, GcProgress } from './gc/gc-plan.js';
export { canonicalPath } from './gc/canonical-path.js';
export { GC_TOMBSTONE_FILE, reclaimFromGc } from './status/gc-tombstone.js';
export type { ReclaimOptions } from './status/gc-tombstone.js';
export { deleteGcCandidates } from './gc/gc-delete.js';
export type { GcDeleteOptions, GcDeleteResult } from './gc/gc-delete.js';
export { materialize } from './materialize/materialize.js';
export type { MaterializeOptions } from './materialize/materialize.js';
export { createProgressReporter } from './progress/progress-reporter.js';
export type { ProgressReporter, ProgressReporterOptions, ProgressStream } from './progress/progress-reporter.js';
export { formatSummary } from './progress/step-state.js';
export type { RunSummary, StepState } from './progress/step-state.js';
export {
  ARTIFACT_USAGE,
  Artifact,
  ArtifactStep,
  ArtifactStepContext,
  CALVER_RE,
  FINGERPRINT_PLACEHOLDERS,
  LAUNCH_PROVENANCE_ENV,
  OUT,
  RECORD_FILE,
  REMOTE_RESULT_FILE,
  STEP_RUNNER_EXECUTOR_VERSION,
  VersionCodex,
  apply,
  artifactMain,
  artifactStepInfo,
  buildArtifacts,
  canonicalJson,
  captureProvenance,
  checkDrift,
  claimAndRun,
  currentVersions,
  defineArtifactType,
  describeDrift,
  explainArtifacts,
  fingerprintHash,
  formatArtifactExplanation,
  formatPlanEntry,
  grid,
  isMutableVersion,
  isRelativePath,
  loadArtifact,
  lowerArtifacts,
  makeRecord,
  nearestOtherVersion,
  normalizeProvenance,
  parseArtifactArgs,
  parseRecord,
  planArtifacts,
  publishedProvenance,
  pydanticFloat,
  pydanticJson,
  pydanticString,
  pythonUrlScheme,
  readRecord,
  resolveArtifact,
  resolveVersion,
  resultPayload,
  runArtifacts,
  sanitizeUserSegment,
  selectBest,
  serializeRecord,
  stepOutputPath,
  sweep,
  userNamespacedName,
  userOwnedName,
  usernameSegment,
  validatePathSegment,
  validateVersion,
  withVersions,
  writeArtifactExperiment,
  writeRecord,
} from './artifact/index.js';
export type {
  ApplyOptions,
  ArtifactArgs,
  ArtifactBuildResult,
  ArtifactExplainAction,
  ArtifactExplainOptions,
  ArtifactExplanation,
  ArtifactMainOptions,
  ArtifactMainResult,
  ArtifactNode,
  ArtifactOutcome,
  ArtifactPlanAction,
  ArtifactPlanEntry,
  ArtifactPlanOptions,
  ArtifactReentryTarget,
  ArtifactRecord,
  ArtifactRunFn,
  ArtifactRunOptions,
  ArtifactRunReport,
  ArtifactStepOptions,
  ArtifactType,
  BuildConfigFn,
  ClaimAndRunOptions,
  ClaimOutcome,
  DriftResult,
  DriftTarget,
  JsonValue,
  LoadedArtifact,
  LoweredArtifacts,
  Provenance,
  PydanticJsonOptions,
  SweepTarget,
} from './artifact/index.js';
