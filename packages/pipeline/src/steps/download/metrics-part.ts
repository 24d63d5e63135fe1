import { atomicWrite, prefixJoin, pyJsonDumps } from '@marin/rigging';

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
