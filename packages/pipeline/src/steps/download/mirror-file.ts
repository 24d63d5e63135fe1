import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { atomicRename, createWriteStream } from '@marin/rigging';
import { PipelineError } from '../../errors.js';
import type { SourceFile } from './source-file.js';
import { transferDeadlineMs } from './transfer-limits.js';
import type { TransferLimits } from './transfer-limits.js';

/**
 * Options of {@link mirrorFile}. `readTimeoutMs` is the longest wait for the first or the next chunk
 * (the attempt then fails retryably); with `minBytesPerSecond` it sets the attempt's total deadline
 * ({@link transferDeadlineMs} of the file's size), past which it fails for good.
 */
export interface MirrorFileOptions extends TransferLimits {
  /** Opens the source bytes; must honour `signal`. */
  open: (signal: AbortSignal) => Promise<Readable>;
  /** Bytes buffered between the source and the output stream. */
  bufferBytes: number;
  /** Aborts the copy; the abort reason is rethrown. */
  signal: AbortSignal;
}

function sizeMismatch(file: SourceFile, dest: string, actualBytes: number): PipelineError {
  return new PipelineError(
    'PIPELINE_SIZE_MISMATCH',
    `"${file.url}" gave ${actualBytes} bytes but the listing says ${file.size}; nothing was written to "${dest}"`,
    { details: { path: file.path, url: file.url, dest, expectedBytes: file.size, actualBytes } },
  );
}

/**
 * Streams one file to a temp sibling of `dest`, checks its byte count against `file.size`, then
 * renames it onto `dest`. On any failure the temp file is removed, so `dest` is either
 * complete or absent. Returns the bytes copied.
 *
 * @throws {PipelineError} PIPELINE_SIZE_MISMATCH (not retryable) if the byte count differs from the listing.
 * @throws {PipelineError} PIPELINE_HUB_UNAVAILABLE (retryable) if no bytes arrive for `readTimeoutMs`.
 * @throws {PipelineError} PIPELINE_HUB_UNAVAILABLE (not retryable) if the copy outlasts its total deadline.
 */
export async function mirrorFile(file: SourceFile, dest: string, opts: MirrorFileOptions): Promise<number> {
  const attempt = new AbortController();
  const timeout = new PipelineError('PIPELINE_HUB_UNAVAILABLE', `no data from "${file.url}" for ${opts.readTimeoutMs} ms`, {
    retryable: true,
    details: { url: file.url, readTimeoutMs: opts.readTimeoutMs },
  });
  const deadlineMs = transferDeadlineMs(file.size, opts);
  const late = new PipelineError(
    'PIPELINE_HUB_UNAVAILABLE',
    `"${file.url}" (${file.size} bytes) took longer than ${deadlineMs} ms, slower than ${opts.minBytesPerSecond} bytes/s; nothing was written to "${dest}"`,
    { retryable: false, details: { url: file.url, path: file.path, deadlineMs, minBytesPerSecond: opts.minBytesPerSecond } },
  );
  let timer: NodeJS.Timeout | undefined;
  const deadline = setTimeout(() => attempt.abort(late), deadlineMs);
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => attempt.abort(timeout), opts.readTimeoutMs);
  };
  const onAbort = (): void => attempt.abort(opts.signal.reason);
  opts.signal.addEventListener('abort', onAbort, { once: true });
  if (opts.signal.aborted) onAbort();
  arm();
  try {
    return await atomicRename(dest, async (tmp) => {
      let bytes = 0;
      const counter = new Transform({
        highWaterMark: opts.bufferBytes,
        transform(chunk: Buffer, _enc, cb) {
          arm();
          bytes += chunk.length;
          if (bytes > file.size) cb(sizeMismatch(file, dest, bytes));
          else cb(null, chunk);
        },
        flush(cb) {
          cb(bytes !== file.size ? sizeMismatch(file, dest, bytes) : null);
        },
      });
      // The output is opened first so the input has a consumer (and an error listener) from the start.
      const output = await createWriteStream(tmp);
      try {
        await pipeline(await opts.open(attempt.signal), counter, output, { signal: attempt.signal });
      } catch (err) {
        // A destroyed write stream removes what it staged before it closes; wait, so nothing outlives the failure.
        if (!output.closed) await new Promise((resolve) => output.once('close', resolve).destroy());
        throw err;
      }
      clearTimeout(timer); // the rename that follows is not a read
      clearTimeout(deadline);
      return bytes;
    });
  } catch (err) {
    // An aborted fetch or pipeline rejects with a generic AbortError; report why it was aborted.
    if (attempt.signal.aborted) throw attempt.signal.reason;
    throw err;
  } finally {
    clearTimeout(timer);
    clearTimeout(deadline);
    opts.signal.removeEventListener('abort', onAbort);
  }
}
