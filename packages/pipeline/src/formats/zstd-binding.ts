import { createRequire } from 'node:module';
import type * as Zstd from 'zstd-napi';
import { PipelineError } from '../errors.js';

/**
 * zstd-napi is an optional peer dependency: it compiles from source where no prebuilt binary is
 * reachable, so `@marin/pipeline` installs without it. Reading zstd parquet pages falls back to the pure
 * JS decoder without it; writing zstd and reading `.zst` JSON lines need it.
 */
const require = createRequire(import.meta.url);
let binding: typeof Zstd | null | undefined;

/** The zstd-napi binding, or null when it is not installed. */
export function optionalZstd(): typeof Zstd | null {
  if (binding === undefined) {
    try {
      binding = require('zstd-napi') as typeof Zstd;
    } catch {
      binding = null;
    }
  }
  return binding;
}

/**
 * The zstd-napi binding.
 * @throws {PipelineError} PIPELINE_UNSUPPORTED_FORMAT naming the install command when it is missing
 */
export function requireZstd(what: string): typeof Zstd {
  const zstd = optionalZstd();
  if (zstd === null) {
    throw new PipelineError('PIPELINE_UNSUPPORTED_FORMAT', `${what} needs the optional peer zstd-napi: npm install zstd-napi@^0.0.13`, {
      details: { peer: 'zstd-napi' },
    });
  }
  return zstd;
}
