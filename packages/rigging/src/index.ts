/**
 * @packageDocumentation
 * `@marin/rigging`: storage paths and filesystems (local, `gs://`, `memory://`, `mirror://`), atomic
 * writes, transfer budgets, lease locks and Python-compatible JSON. See README.md.
 *
 * @example
 * ```ts
 * import { createLease, defaultWorkerId, glob, mirrorBudget, readText, writeText } from '@marin/rigging';
 *
 * await writeText('memory://demo/a.txt', 'hello');                 // atomic on every backend
 * console.log(await glob('memory://demo/{a,b}.txt'));               // ['memory://demo/a.txt']
 * await using lease = createLease('memory://demo/.lock', { workerId: defaultWorkerId() });
 * console.log(await lease.tryAcquire());                            // true
 * await mirrorBudget(1, () => readText('mirror://tokenized/shard-0.jsonl'));
 * ```
 */
import { registerMirrorFilesystem } from './mirror/mirror-filesystem.js';

export { CodedError, hasBrand } from './coded-error.js';
export type { CodedErrorOptions } from './coded-error.js';
export { RiggingError } from './errors.js';
export type { RiggingErrorCode } from './errors.js';
export {
  FloatValue,
  compareCodePoints,
  float,
  formatPyJsonPath,
  isBuiltinInstance,
  isPyJsonObject,
  isRecord,
  orderedKeys,
  parsePyJson,
  pyFloatRepr,
  pyIntRepr,
  pyJsonDumps,
  pyQuote,
  sortByCodePoint,
} from './json/index.js';
export type { PyJsonDumpsOptions, PyJsonPathSegment } from './json/index.js';
export { StoragePath, prefixJoin, schemeOf, splitGcsPath } from './fs/storage-path.js';
export { isConditionalFilesystem } from './fs/filesystem.js';
export type {
  ByteRange,
  ConditionalFilesystem,
  FileInfo,
  Filesystem,
  LsOptions,
  RmOptions,
  VersionedBytes,
} from './fs/filesystem.js';
export { filesystemFor, registerFilesystem } from './fs/registry.js';
export type { FilesystemFactory, RegisterFilesystemOptions } from './fs/registry.js';
export { createLocalFilesystem, localPathOf } from './fs/local-filesystem.js';
export { createMemoryFilesystem, resetMemoryFilesystem } from './fs/memory-filesystem.js';
export { ObjectStoreFilesystem } from './fs/object-store-filesystem.js';
export type { ObjectLocation, ObjectMeta } from './fs/object-store-filesystem.js';
export { compileGlob, expandBraces, hasWildcard } from './fs/glob-pattern.js';
export {
  copy,
  createReadStream,
  createWriteStream,
  exists,
  expandGlob,
  glob,
  ls,
  mkdirs,
  readBytes,
  readText,
  rename,
  rm,
  size,
  stat,
  writeBytes,
  writeText,
} from './fs/verbs.js';
export { isTempPath, tempTarget, uniqueTempPath } from './fs/temp-path.js';
export { atomicRename, atomicWrite } from './fs/atomic-rename.js';
export type { AtomicRenameOptions } from './fs/atomic-rename.js';
export { createLease, formatLease, parseLease } from './locks/distributed-lease.js';
export type { DistributedLease, LeaseOptions, LeaseRecord, LeaseState } from './locks/distributed-lease.js';
export { leaseTimings } from './locks/lease-timings.js';
export type { LeaseTimings } from './locks/lease-timings.js';
export { defaultWorkerId } from './locks/worker-id.js';
export { conditionalObject } from './locks/conditional-object.js';
export type { ConditionalObject } from './locks/conditional-object.js';
export {
  EMPTY_DATA_CONFIG,
  defaultClusterSearchDirs,
  loadDataConfig,
  parseDataConfig,
  resetDataConfigCache,
  withDataConfig,
} from './config/data-config.js';
export type { DataConfig, LoadDataConfigOptions, RegionBucket, StoreKind } from './config/data-config.js';
export { marinRegion, regionFromMetadata, regionFromPrefix, regionFromZone } from './config/region.js';
export { DEFAULT_LOCAL_PREFIX, marinPrefix } from './config/marin-prefix.js';
export { marinTempBucket } from './config/temp-bucket.js';
export type { TempBucketOptions } from './config/temp-bucket.js';
export { BYTES_PER_GB, BYTES_PER_MB, TransferBudget } from './budget/transfer-budget.js';
export { currentMirrorBudget, globalTransferBudget, mirrorBudget } from './budget/mirror-budget.js';
export { mapLimit } from './concurrency/map-limit.js';
export { ExponentialBackoff } from './retry/exponential-backoff.js';
export type { ExponentialBackoffOptions, WaitUntilOptions } from './retry/exponential-backoff.js';
export { retryWithBackoff } from './retry/retry-with-backoff.js';
export type { RetryAttempt, RetryOptions } from './retry/retry-with-backoff.js';
export { pollUntil } from './retry/poll-until.js';
export type { PollOptions } from './retry/poll-until.js';
export { defaultSleep } from './retry/sleep.js';
export { isProcessAlive } from './process/process-alive.js';
export { isProcessGroupAlive, signalProcessGroup, terminateProcessGroup } from './process/process-group.js';
export type { TerminateProcessGroupOptions } from './process/process-group.js';
export { createStderrLogger, silentLogger } from './log/logger.js';
export type { Logger } from './log/logger.js';
export type { Sleep } from './retry/sleep.js';
export { createGcsClient, sharedGcsClient } from './fs/gcs-client.js';
export type { GcsClientOptions } from './fs/gcs-client.js';
export { createGcsFilesystem } from './fs/gcs-filesystem.js';
export type { GcsFilesystemOptions } from './fs/gcs-filesystem.js';
export {
  MirrorFilesystem,
  createMirrorFilesystem,
  defaultMirrorFilesystem,
  mirrorRelativeKey,
  registerMirrorFilesystem,
  resolveMirrorUrl,
  setDefaultMirrorFilesystem,
} from './mirror/mirror-filesystem.js';
export type { MirrorFilesystemOptions, MirrorLockWait } from './mirror/mirror-filesystem.js';
export { copyTree, listFilesRecursive } from './fs/copy-tree.js';
export type { CopyTreeOptions, CopyTreeResult } from './fs/copy-tree.js';
export { fetchFileAtomic } from './fs/fetch-file-atomic.js';
export { findPythonInterpreter } from './python-env/find-python.js';
export { PYTHON_ENV_LOCK_FILE, PYTHON_ENV_MARKER, ensurePythonEnv, pythonEnvCacheDir, pythonEnvDir, pythonEnvKey } from './python-env/python-env.js';
export type { PythonEnv, PythonEnvOptions } from './python-env/python-env.js';

// `mirror://` reads through the filesystem registry, so the registry does not import it: it registers
// itself, through the public registration call, whenever this entry point loads.
registerMirrorFilesystem();
