import { atomicWrite, prefixJoin, pyJsonDumps } from '@marin/rigging';

/** The fields of a download's `provenance.json`. */
export interface DownloadProvenance {
  /** Repository id. */
  dataset: string;
  /** Revision the files were read at (`null` for an unpinned override directory). */
  version: string | null;
  /** Where each file was read from. */
  links: readonly string[];
}

/**
 * `date` as Python's `datetime.now(timezone.utc).isoformat()` writes it:
 * `2025-01-02T03:04:05.678000+00:00` (the fraction is dropped when it is zero).
 */
export function pyIsoUtc(date: Date): string {
  const iso = date.toISOString(); // 2025-01-02T03:04:05.678Z
  const ms = date.getUTCMilliseconds();
  return `${iso.slice(0, 19)}${ms === 0 ? '' : `.${String(ms).padStart(3, '0')}000`}+00:00`;
}

/**
 * Writes `<out>/provenance.json` as Marin does (`json.dump(…, indent=4, sort_keys=True)`), adding
 * `access_time` from `now`.
 */
export async function writeProvenance(out: string, provenance: DownloadProvenance, now: Date): Promise<void> {
  const body = { dataset: provenance.dataset, version: provenance.version, links: [...provenance.links], access_time: pyIsoUtc(now) };
  await atomicWrite(prefixJoin(out, 'provenance.json'), pyJsonDumps(body, { sortKeys: true, indent: 4 }));
}
