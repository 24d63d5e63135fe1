/**
 * @packageDocumentation
 * `@marin/executor`. See README.md.
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
  walkConfig,
} from './dag/index.js';
export type { ConfigEvent, ExecutorStepOptions, MirroredOptions, Resolved, StepContext, StepFn } from './dag/index.js';
export { silentLogger, stderrLogger } from './logger.js';
export type { ExecutorLogger } from './logger.js';
