import { StoragePath, expandBraces, glob, stat } from '@marin/rigging';
import type { FileInfo } from '@marin/rigging';
import { PipelineError } from '../../errors.js';
import { RECORD_FILE_EXTENSIONS, recordFileFormat } from '../../formats/input-format.js';

/** Document files a directory expands to: JSON lines (plain, gzip, Zstandard) and parquet. */
export const DOCUMENT_EXTENSIONS = RECORD_FILE_EXTENSIONS;

/** One input file and its size in bytes. */
export interface InputFile {
  url: string;
  bytes: number;
}

function basename(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1);
}

/** Dot-files, files under dot-directories and `provenance.json` are metadata, never documents. */
function isMetadata(url: string, root: string): boolean {
  const rel = url.startsWith(root) ? url.slice(root.length) : basename(url);
  return rel.split('/').some((seg) => seg.startsWith('.')) || basename(url) === 'provenance.json';
}

async function expandOne(path: string): Promise<InputFile[]> {
  const isDirLike = path.endsWith('/') || (!/[*?[{]/.test(path) && (await isDirectory(path)));
  if (isDirLike) {
    const root = path.endsWith('/') ? path : `${path}/`;
    const all = await glob(`${root}**/*.{${DOCUMENT_EXTENSIONS.join(',')}}`);
    return sized(all.filter((u) => !isMetadata(u, root)));
  }
  const matches = /[*?[]/.test(path) ? await glob(path) : await existing(path);
  return sized(matches.filter((u) => !isMetadata(u, '')));
}

async function isDirectory(url: string): Promise<boolean> {
  try {
    return (await stat(url)).type === 'directory';
  } catch {
    return false;
  }
}

async function existing(url: string): Promise<string[]> {
  try {
    await stat(url);
    return [url];
  } catch {
    return [];
  }
}

async function sized(urls: string[]): Promise<InputFile[]> {
  const infos: FileInfo[] = await Promise.all(urls.map((u) => stat(u)));
  return infos.filter((i) => i.type === 'file').map((i, n) => ({ url: urls[n] ?? i.url, bytes: i.size }));
}

/**
 * The document files of a split: each path is a file, a glob, or a directory (expanded to
 * `**∕*.{parquet,jsonl,jsonl.gz,json.gz,jsonl.zst,json.zst,…}`); braces are expanded; dot-files and `provenance.json` are skipped;
 * the result is unique and sorted.
 *
 * @throws {PipelineError} PIPELINE_INPUT_NOT_FOUND naming the path that matched nothing
 * @throws {PipelineError} PIPELINE_UNSUPPORTED_FORMAT for a named file of another format
 */
export async function discoverInputs(paths: readonly string[]): Promise<InputFile[]> {
  const byUrl = new Map<string, InputFile>();
  for (const path of paths) {
    const found: InputFile[] = [];
    for (const member of expandBraces(path)) found.push(...(await expandOne(normalise(member))));
    if (found.length === 0) {
      throw new PipelineError('PIPELINE_INPUT_NOT_FOUND', `no documents found at ${JSON.stringify(path)}; expected .jsonl, .jsonl.gz or .json.gz files`, {
        details: { path },
      });
    }
    for (const f of found) {
      recordFileFormat(f.url);
      byUrl.set(f.url, f);
    }
  }
  return [...byUrl.values()].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
}

function normalise(path: string): string {
  // A local path gets the same treatment as a URL; StoragePath keeps schemes as they are.
  return path.endsWith('/') ? `${StoragePath.parse(path.slice(0, -1)).toString()}/` : StoragePath.parse(path).toString();
}

/**
 * Consecutive files grouped into parts of at least `max(minPartBytes, total / maxWorkers)` bytes (the last part
 * may be smaller), so tiny inputs make one part and large ones at most about `maxWorkers`.
 */
export function groupIntoParts(files: readonly InputFile[], maxWorkers: number, minPartBytes: number): InputFile[][] {
  const total = files.reduce((s, f) => s + f.bytes, 0);
  const target = Math.max(minPartBytes, Math.ceil(total / Math.max(1, maxWorkers)));
  const parts: InputFile[][] = [];
  let current: InputFile[] = [];
  let bytes = 0;
  for (const f of files) {
    current.push(f);
    bytes += f.bytes;
    if (bytes >= target) {
      parts.push(current);
      current = [];
      bytes = 0;
    }
  }
  if (current.length > 0) parts.push(current);
  return parts;
}
