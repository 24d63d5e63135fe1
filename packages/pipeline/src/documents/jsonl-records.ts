import { createGunzip } from 'node:zlib';
import { createInterface } from 'node:readline';
import { Transform } from 'node:stream';
import type { Readable } from 'node:stream';
import { createReadStream } from '@marin/rigging';
import { PipelineError } from '../errors.js';
import { requireZstd } from '../formats/zstd-binding.js';

/** One parsed JSON-lines record and where it came from. */
export interface JsonlRecord {
  /** The parsed object. */
  record: Record<string, unknown>;
  /** 1-based line number in the (decompressed) file. */
  line: number;
}

/** Whether a file name says gzip (`.gz`). */
export function isGzip(url: string): boolean {
  return url.endsWith('.gz');
}

/** Whether a file name says Zstandard (`.zst` or `.zstd`). */
export function isZstd(url: string): boolean {
  return url.endsWith('.zst') || url.endsWith('.zstd');
}

function codecName(url: string): string {
  return isGzip(url) ? 'gzip' : isZstd(url) ? 'zstd' : 'text';
}

/**
 * Streams the records of a JSON-lines file (gzip when the name ends in `.gz`, Zstandard for `.zst` or
 * `.zstd`) from any storage URL,
 * skipping blank lines. Memory stays bounded by one line.
 *
 * @throws {PipelineError} PIPELINE_INPUT_INVALID naming the file (and line) for truncated or corrupt gzip or zstd, a line
 *   that is not JSON, or a line that is not a JSON object
 */
export async function* readJsonlRecords(url: string, options: { signal?: AbortSignal } = {}): AsyncGenerator<JsonlRecord> {
  const raw = await createReadStream(url);
  let source: Readable = raw;
  let streamError: unknown = null;
  if (isGzip(url)) {
    const gunzip = createGunzip();
    raw.on('error', (e) => gunzip.destroy(e));
    source = raw.pipe(gunzip);
  } else if (isZstd(url)) {
    const unzstd = new (requireZstd(`reading ${url}`).DecompressStream)();
    raw.on('error', (e) => unzstd.destroy(e));
    source = raw.pipe(unzstd);
  }
  // Bytes that are not UTF-8 fail the read (naming the file) instead of silently becoming U+FFFD.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const text = new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _enc, cb) {
      try {
        cb(null, decoder.decode(chunk, { stream: true }));
      } catch (e) {
        cb(e as Error);
      }
    },
    flush(cb) {
      try {
        cb(null, decoder.decode());
      } catch (e) {
        cb(e as Error);
      }
    },
  });
  source.on('error', (e) => text.destroy(e));
  source.pipe(text);
  const lines = createInterface({ input: text, crlfDelay: Infinity });
  text.on('error', (e) => {
    streamError = e;
    lines.close();
  });
  let line = 0;
  try {
    for await (const text of lines) {
      line += 1;
      options.signal?.throwIfAborted();
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (cause) {
        throw new PipelineError('PIPELINE_INPUT_INVALID', `${url} line ${line} is not JSON`, { cause, details: { path: url, line } });
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new PipelineError('PIPELINE_INPUT_INVALID', `${url} line ${line} is not a JSON object`, { details: { path: url, line } });
      }
      yield { record: value as Record<string, unknown>, line };
    }
  } catch (e) {
    if (PipelineError.is(e) || options.signal?.aborted === true) throw e;
    streamError = e;
  } finally {
    lines.close();
    raw.destroy();
  }
  if (streamError !== null) {
    const badUtf8 = (streamError as { code?: unknown }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA';
    const what = badUtf8 ? 'it is not valid UTF-8' : `the file is truncated or not valid ${codecName(url)}`;
    throw new PipelineError('PIPELINE_INPUT_INVALID', `cannot read ${url}: ${what}`, {
      cause: streamError,
      details: { path: url, line },
    });
  }
}
