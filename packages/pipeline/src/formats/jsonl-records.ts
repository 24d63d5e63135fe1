import { isUtf8 } from 'node:buffer';
import { createGunzip } from 'node:zlib';
import { createInterface } from 'node:readline';
import { Transform } from 'node:stream';
import type { Readable } from 'node:stream';
import { createReadStream } from '@marin/rigging';
import { PipelineError } from '../errors.js';
import { requireZstd } from './zstd-binding.js';

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
  const { raw, source } = await openDecompressed(url);
  let streamError: unknown = null;
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
    // The decoder fails on a chunk, ahead of the lines read so far: find the line itself (error path only).
    const badLine = badUtf8 ? await firstInvalidUtf8Line(url).catch(() => null) : null;
    const what = badUtf8 ? `${badLine === null ? 'it' : `line ${badLine}`} is not valid UTF-8; re-encode the file as UTF-8` : `the file is truncated or not valid ${codecName(url)}`;
    throw new PipelineError('PIPELINE_INPUT_INVALID', `cannot read ${url}: ${what}`, {
      cause: streamError,
      details: { path: url, line: badLine ?? line },
    });
  }
}

/** The file's bytes, decompressed by its name (gzip, zstd or none), and the raw stream underneath. */
async function openDecompressed(url: string): Promise<{ raw: Readable; source: Readable }> {
  const raw = await createReadStream(url);
  if (isGzip(url)) {
    const gunzip = createGunzip();
    raw.on('error', (e) => gunzip.destroy(e));
    return { raw, source: raw.pipe(gunzip) };
  }
  if (isZstd(url)) {
    const unzstd = new (requireZstd(`reading ${url}`).DecompressStream)();
    raw.on('error', (e) => unzstd.destroy(e));
    return { raw, source: raw.pipe(unzstd) };
  }
  return { raw, source: raw };
}

/** The 1-based number of the first line that is not valid UTF-8, or null; reads the file again, one line in memory. */
async function firstInvalidUtf8Line(url: string): Promise<number | null> {
  const { raw, source } = await openDecompressed(url);
  let line = 1;
  let carry: Buffer = Buffer.alloc(0);
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      let data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10)) {
        if (!isUtf8(data.subarray(0, nl))) return line;
        line += 1;
        data = data.subarray(nl + 1);
      }
      carry = Buffer.from(data);
    }
    return isUtf8(carry) ? null : line;
  } finally {
    raw.destroy();
  }
}
