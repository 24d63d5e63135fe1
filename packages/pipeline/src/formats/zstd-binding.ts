import { createRequire } from 'node:module';
import type * as Zstd from 'zstd-napi';
import type * as ZstdBinding from 'zstd-napi/binding.js';
import { PipelineError } from '../errors.js';

/**
 * zstd-napi is an optional peer dependency: it compiles from source where no prebuilt binary is
 * reachable, so `@marin/pipeline` installs without it. Reading zstd parquet pages falls back to the pure
 * JS decoder without it; writing zstd and reading `.zst` JSON lines need it.
 */
const require = createRequire(import.meta.url);
let binding: typeof Zstd | null | undefined;
let native: typeof ZstdBinding | undefined;

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

/** zstd-napi's low-level binding (contexts called with caller-owned buffers), once {@link requireZstd} succeeded. */
function nativeBinding(): typeof ZstdBinding {
  native ??= require('zstd-napi/binding.js') as typeof ZstdBinding;
  return native;
}

/**
 * A zstd page compressor for writers: one native context and one output buffer reused for every page,
 * where zstd-napi's `compress()` creates a context (and allocates and frees its tables) and a
 * bound-sized buffer per call, then copies the result out. Same frames as `compress(page, {
 * compressionLevel })` (`ZSTD_compress2` with only the level set).
 */
export interface ZstdPageCompressor {
  /** The compressed frame of `page`, in a buffer the compressor overwrites on its next call: copy it out first. */
  compressTransient(page: Uint8Array): Uint8Array;
}

/**
 * @throws {PipelineError} PIPELINE_UNSUPPORTED_FORMAT naming the install command when zstd-napi is missing
 */
export function createZstdPageCompressor(level: number, what: string): ZstdPageCompressor {
  requireZstd(what);
  const b = nativeBinding();
  const cctx = new b.CCtx();
  cctx.setParameter(b.CParameter.compressionLevel, level);
  let out = Buffer.alloc(0);
  return {
    compressTransient(page) {
      const bound = b.compressBound(page.byteLength);
      if (out.byteLength < bound) out = Buffer.allocUnsafe(bound);
      return out.subarray(0, cctx.compress2(out, page));
    },
  };
}

let dctx: ZstdBinding.DCtx | undefined;

/**
 * Decompresses zstd frames whose decompressed size is known (a parquet page's header gives it) into
 * a new buffer of exactly that size, through one native context reused by every call (zstd-napi's
 * `decompress()` creates a context per call and reads the frame header to size its output).
 *
 * @throws Error when the frame is corrupt or does not decompress to exactly `size` bytes
 */
export function zstdDecompressKnownSize(frame: Uint8Array, size: number): Uint8Array {
  const b = nativeBinding();
  dctx ??= new b.DCtx();
  const out = Buffer.allocUnsafe(size);
  const n = dctx.decompress(out, frame);
  if (n !== size) throw new Error(`zstd frame decompressed to ${n} bytes, not the ${size} its page header gives`);
  return out;
}

/**
 * {@link zstdDecompressKnownSize} into the caller's buffer `out`, whose length is the frame's
 * decompressed size: for readers that copy the values out of a page and can reuse one page buffer.
 *
 * @throws Error when the frame is corrupt or does not decompress to exactly `out.byteLength` bytes
 */
export function zstdDecompressInto(frame: Uint8Array, out: Uint8Array): Uint8Array {
  const b = nativeBinding();
  dctx ??= new b.DCtx();
  const n = dctx.decompress(out, frame);
  if (n !== out.byteLength) throw new Error(`zstd frame decompressed to ${n} bytes, not the ${out.byteLength} its page header gives`);
  return out;
}
