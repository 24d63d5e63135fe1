import { RiggingError, filesystemFor, listFilesRecursive } from '@marin/rigging';
import { PipelineError } from '../../errors.js';
import type { SourceFile } from './source-file.js';

/**
 * Every file below `url` (a local directory or any rigging URL) with its path relative to `url`.
 * @throws {PipelineError} PIPELINE_INPUT_NOT_FOUND if `url` does not exist.
 */
export async function listOverrideFiles(url: string): Promise<SourceFile[]> {
  try {
    const files = await listFilesRecursive(filesystemFor(url), url);
    return files.map(({ rel, info }) => ({ path: rel, size: info.size, url: info.url }));
  } catch (err) {
    if (!RiggingError.hasCode(err, 'RIGGING_NOT_FOUND')) throw err;
    throw new PipelineError('PIPELINE_INPUT_NOT_FOUND', `source_url_override "${url}" does not exist`, {
      cause: err,
      details: { path: url },
    });
  }
}
