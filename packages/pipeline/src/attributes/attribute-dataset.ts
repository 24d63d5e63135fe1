import { ls, prefixJoin } from '@marin/rigging';
import { PipelineError } from '../errors.js';

/** The column that joins an attribute dataset to its source: the document id. */
export const ID_COLUMN = 'id';

/** The name of part `shard` of `total`: `part-{shard:05d}-of-{total:05d}.parquet`, as Marin's datakit names them. */
export function partFileName(shard: number, total: number): string {
  return `part-${String(shard).padStart(5, '0')}-of-${String(total).padStart(5, '0')}.parquet`;
}

const PART_RE = /^part-(\d{5,})-of-(\d{5,})\.parquet$/;

/**
 * The part files of a partitioned dataset directory (a normalize output's `outputs/main`, or an
 * attribute dataset), sorted by name, checked to be exactly `part-00000-of-N` … `part-(N-1)-of-N`.
 *
 * **Convention.** A stage that judges documents writes an *attribute dataset*: a directory with the
 * same part file names as its source, where part `i` holds, for every document of source part `i` and
 * in the same order (sorted by `id`), one row `{ id, <attribute columns>… }`. Readers join by a
 * sorted merge on `id`, part by part, without a shuffle.
 *
 * @throws {PipelineError} PIPELINE_INPUT_NOT_FOUND when the directory holds no parts;
 *   PIPELINE_INPUT_INVALID when parts are missing or their totals disagree
 */
export async function listPartFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = (await ls(dir)).filter((i) => i.type === 'file').map((i) => i.url.slice(i.url.lastIndexOf('/') + 1));
  } catch (cause) {
    throw new PipelineError('PIPELINE_INPUT_NOT_FOUND', `no dataset parts at ${dir}`, { cause, details: { path: dir } });
  }
  const parts = names.filter((n) => PART_RE.test(n)).sort();
  if (parts.length === 0) {
    throw new PipelineError('PIPELINE_INPUT_NOT_FOUND', `no part-NNNNN-of-NNNNN.parquet files at ${dir}`, { details: { path: dir } });
  }
  const total = parts.length;
  parts.forEach((name, i) => {
    if (name !== partFileName(i, total)) {
      throw new PipelineError('PIPELINE_INPUT_INVALID', `${dir} has an incomplete set of parts: expected ${partFileName(i, total)}, found ${name}`, {
        details: { path: prefixJoin(dir, name) },
      });
    }
  });
  return parts.map((n) => prefixJoin(dir, n));
}

/**
 * Checks that every attribute dataset has exactly the source's part names.
 *
 * @throws {PipelineError} PIPELINE_INPUT_INVALID naming the attribute directory and the first part that differs
 */
export async function checkCoPartitioned(sourceDir: string, attributeDirs: readonly string[]): Promise<string[][]> {
  const source = (await listPartFiles(sourceDir)).map((u) => u.slice(u.lastIndexOf('/') + 1));
  const out: string[][] = [];
  for (const dir of attributeDirs) {
    let names: string[];
    try {
      names = (await listPartFiles(dir)).map((u) => u.slice(u.lastIndexOf('/') + 1));
    } catch (e) {
      if (!PipelineError.is(e)) throw e;
      throw new PipelineError('PIPELINE_INPUT_INVALID', `attribute dataset ${dir} does not match source ${sourceDir}: ${e.message}`, {
        cause: e,
        details: { path: dir, source: sourceDir },
      });
    }
    if (names.length !== source.length || names.some((n, i) => n !== source[i])) {
      throw new PipelineError(
        'PIPELINE_INPUT_INVALID',
        `attribute dataset ${dir} has ${names.length} parts but source ${sourceDir} has ${source.length}: rerun the attribute stage on this source`,
        { details: { path: dir, source: sourceDir } },
      );
    }
    out.push(names.map((n) => prefixJoin(dir, n)));
  }
  return out;
}
