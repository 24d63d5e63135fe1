import { mkdirs, prefixJoin, rm, writeText } from '@marin/rigging';
import { PipelineError } from '../errors.js';

/**
 * Creates `out` and writes then deletes `<out>/test_write_access`, so a stage fails before it
 * reads or writes anything else when its output cannot be written.
 *
 * @throws {PipelineError} PIPELINE_OUTPUT_NOT_WRITABLE naming `out`, with the storage error as `cause`.
 */
export async function assertWritable(out: string): Promise<void> {
  const probe = prefixJoin(out, 'test_write_access');
  try {
    await mkdirs(out);
    await writeText(probe, 'test');
    await rm(probe);
  } catch (err) {
    throw new PipelineError('PIPELINE_OUTPUT_NOT_WRITABLE', `cannot write to output "${out}": check the path and its permissions`, {
      cause: err,
      details: { path: out },
    });
  }
}
