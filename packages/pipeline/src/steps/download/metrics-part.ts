import { atomicWrite, prefixJoin, pyJsonDumps, readText, size } from '@marin/rigging';
import type { SourceFile } from './source-file.js';

/** What one metrics part records about a mirrored file. */
export interface MirroredFileRecord {
  /** Repository-relative path. */
  path: string;
  /** Bytes written. */
  bytes: number;
}

const pad5 = (n: number): string => String(n).padStart(5, '0');

/**
 * `<out>/.metrics/success-part-{index:05d}-of-{total:05d}.jsonl`: the marker that file `index` of
 * `total` (in listing order) is complete. Its existence is what a rerun skips on.
 */
export function metricsPartPath(out: string, index: number, total: number): string {
  return prefixJoin(out, `.metrics/success-part-${pad5(index)}-of-${pad5(total)}.jsonl`);
}

/** Writes the metrics part of one mirrored file: one JSON line `{"path": …, "bytes": …}`, atomically. */
export async function writeMetricsPart(url: string, record: MirroredFileRecord): Promise<void> {
  await atomicWrite(url, `${pyJsonDumps({ path: record.path, bytes: record.bytes })}\n`);
}

/**
 * True when the metrics part at `marker` records exactly `file` (same path, same byte count) and
 * `dest` holds that many bytes: only then does a rerun skip the file. A missing, unreadable or
 * foreign marker, or a destination that changed since, means the file is copied again.
 */
export async function isCompleted(marker: string, file: SourceFile, dest: string): Promise<boolean> {
  const text = await readText(marker).catch(() => null);
  if (text === null) return false;
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    return false;
  }
  const { path, bytes } = (typeof record === 'object' && record !== null ? record : {}) as Partial<MirroredFileRecord>;
  if (path !== file.path || bytes !== file.size) return false;
  return (await size(dest).catch(() => null)) === file.size;
}
