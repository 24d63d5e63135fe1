import { expandBraces, glob, stat } from '@marin/rigging';
import { PipelineError } from '../errors.js';
import type { DatasetPart } from './dataset-part.js';
import { RECORD_FILE_EXTENSIONS, recordFileFormat } from './input-format.js';
import { openParquetFile } from './parquet-file.js';

function basename(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1);
}

/** Dot-files, files under dot-directories, temp files and `provenance.json` are never records. */
function isMetadata(url: string, root: string): boolean {
  const rel = url.startsWith(root) ? url.slice(root.length) : basename(url);
  return rel.split('/').some((seg) => seg.startsWith('.') || seg.startsWith('_')) || basename(url) === 'provenance.json';
}

async function isDirectory(url: string): Promise<boolean> {
  try {
    return (await stat(url)).type === 'directory';
  } catch {
    return false;
  }
}

/**
 * The record files under `paths`, sorted and unique: each path is a file, a glob, or a directory
 * (expanded to every `.parquet`, `.jsonl`, `.jsonl.gz`, `.json.gz`, `.jsonl.zst`, `.json.zst` below it);
 * braces are expanded; dot-files, `_`-prefixed entries and `provenance.json` are skipped.
 *
 * @throws {PipelineError} PIPELINE_INPUT_NOT_FOUND naming the path that matched nothing;
 *   PIPELINE_UNSUPPORTED_FORMAT for a named file of another format
 */
export async function listRecordFiles(paths: string | readonly string[]): Promise<string[]> {
  const out = new Set<string>();
  for (const path of typeof paths === 'string' ? [paths] : paths) {
    const found: string[] = [];
    for (const member of expandBraces(path)) {
      const p = member.replace(/\/+$/, '');
      if (/[*?[]/.test(p)) {
        found.push(...(await glob(p)).filter((u) => !isMetadata(u, '')));
      } else if (await isDirectory(p)) {
        const root = `${p}/`;
        const all = await glob(`${root}**/*.{${RECORD_FILE_EXTENSIONS.join(',')}}`);
        found.push(...all.filter((u) => !isMetadata(u, root)));
      } else {
        try {
          if ((await stat(p)).type === 'file') found.push(p);
        } catch {
          // reported below as not found
        }
      }
    }
    if (found.length === 0) {
      throw new PipelineError('PIPELINE_INPUT_NOT_FOUND', `no record files found at ${JSON.stringify(path)}; expected .parquet or .jsonl[.gz|.zst] files`, {
        details: { path },
      });
    }
    for (const f of found) {
      recordFileFormat(f);
      out.add(f);
    }
  }
  return [...out].sort();
}

/**
 * The parts of a dataset, in file order: one per parquet row group (rows from the footer), one per
 * JSON-lines file. Only parquet footers are read.
 *
 * @throws {PipelineError} as {@link listRecordFiles}; PIPELINE_INPUT_INVALID for a corrupt parquet footer
 */
export async function listDatasetParts(paths: string | readonly string[]): Promise<DatasetPart[]> {
  const parts: DatasetPart[] = [];
  for (const url of await listRecordFiles(paths)) {
    const { format } = recordFileFormat(url);
    if (format === 'jsonl') {
      parts.push({ url, format, rowGroup: null, rows: null, bytes: (await stat(url)).size });
      continue;
    }
    await using file = await openParquetFile(url);
    for (const g of file.rowGroups) parts.push({ url, format, rowGroup: g.index, rows: g.numRows, bytes: g.compressedBytes });
  }
  return parts;
}
