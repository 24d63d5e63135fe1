import { createReadStream } from '@marin/rigging';
import { PipelineError } from '../errors.js';

/**
 * Reads bytes `[start, end)` of `url` through rigging (local paths, gs://, memory://).
 * @throws {PipelineError} PIPELINE_INPUT_INVALID when the file ends before `end` (`details.path`)
 */
export async function readRange(url: string, start: number, end: number): Promise<Uint8Array> {
  const out = new Uint8Array(end - start);
  if (end <= start) return out;
  const stream = await createReadStream(url, { start, end: end - 1 });
  let pos = 0;
  for await (const piece of stream as AsyncIterable<Buffer>) {
    out.set(piece.subarray(0, out.byteLength - pos), pos);
    pos += piece.byteLength;
  }
  if (pos < out.byteLength) throw new PipelineError('PIPELINE_INPUT_INVALID', `"${url}" ended after ${start + pos} bytes, expected ${end}`, { details: { path: url } });
  return out;
}
