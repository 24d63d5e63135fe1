import type { JsonValue } from '@marin/fray';
import { dataflowTask } from '../../dataflow/dataflow-task.js';
import type { DataflowTaskArgs } from '../../dataflow/dataflow-task.js';
import { compareKeys } from '../../dataflow/sorted-merge.js';
import { PipelineError } from '../../errors.js';
import { createParquetPartWriter } from '../../formats/parquet-part-writer.js';
import { readParquetRecords } from '../../formats/parquet-records.js';
import type { ParquetColumnSpec } from '../../formats/parquet-schema.js';
import { filterValue, passes } from './consolidate-filter.js';
import type { FilterConfig } from './consolidate-filter.js';

/** The JSON arguments of one consolidate task: one source part and its attribute parts. */
export interface ConsolidatePartArgs extends DataflowTaskArgs {
  source_url: string;
  /** `attribute_urls[i]` is the part of `filters[i]`'s attribute dataset with the source part's name. */
  attribute_urls: string[];
  /** Filters with `keep_fraction` already resolved to thresholds. */
  filters: FilterConfig[] & JsonValue;
  output_url: string;
  columns: ParquetColumnSpec[] & JsonValue;
  row_group_bytes: number;
}

/** Per filter: documents it rejected and documents without an attribute row (also dropped). */
export interface FilterCounts {
  [key: string]: JsonValue;
  name: string;
  rejected: number;
  missing: number;
}

/** What a consolidate task records. */
export interface ConsolidatePartResult {
  [key: string]: JsonValue;
  docs_in: number;
  docs_out: number;
  filters: FilterCounts[];
}

/** A cursor over an attribute part sorted by id: `seek(id)` returns the row for `id` or `undefined`. */
class AttributeCursor {
  private readonly it: AsyncIterator<Record<string, unknown>>;
  private head: Record<string, unknown> | null | undefined;
  private lastId: unknown = null;

  constructor(
    private readonly url: string,
    column: string,
    signal: AbortSignal,
  ) {
    this.it = readParquetRecords(url, { columns: ['id', column], signal })[Symbol.asyncIterator]();
  }

  private async next(): Promise<Record<string, unknown> | null> {
    const n = await this.it.next();
    const row = n.done === true ? null : n.value;
    if (row !== null) {
      if (this.lastId !== null && compareKeys(row['id'], this.lastId) < 0) {
        throw new PipelineError('PIPELINE_INPUT_INVALID', `attribute part ${this.url} is not sorted by id (at ${String(row['id'])}); rerun the stage that wrote it`, {
          details: { path: this.url },
        });
      }
      this.lastId = row['id'];
    }
    return row;
  }

  async seek(id: string): Promise<Record<string, unknown> | undefined> {
    if (this.head === undefined) this.head = await this.next();
    while (this.head !== null && compareKeys(this.head['id'], id) < 0) this.head = await this.next();
    if (this.head !== null && this.head['id'] === id) return this.head;
    return undefined;
  }

  async close(): Promise<void> {
    await this.it.return?.();
  }
}

/**
 * Joins one source part with its attribute parts by a sorted merge on `id` (source and attributes are
 * sorted by `id`, so memory holds one row group of each) and writes the documents every filter keeps,
 * in source order, to `output_url`. The `consolidatePartTask` export.
 *
 * @throws {PipelineError} PIPELINE_INPUT_INVALID for an unsorted source or attribute part or a bad value
 */
export const consolidatePartTask = dataflowTask<ConsolidatePartArgs, ConsolidatePartResult>(async (args, signal) => {
  const cursors = args.filters.map((f, i) => new AttributeCursor(args.attribute_urls[i] ?? '', f.name, signal));
  const counts: FilterCounts[] = args.filters.map((f) => ({ name: f.name, rejected: 0, missing: 0 }));
  let docsIn = 0;
  let docsOut = 0;
  let lastId: string | null = null;
  try {
    await using out = await createParquetPartWriter(args.output_url, { columns: args.columns, rowGroupBytes: args.row_group_bytes });
    for await (const doc of readParquetRecords(args.source_url, { signal })) {
      docsIn += 1;
      const id = doc['id'];
      if (typeof id !== 'string') {
        throw new PipelineError('PIPELINE_SCHEMA_MISMATCH', `${args.source_url} has no string id column; consolidate reads normalized datasets`, {
          details: { path: args.source_url, column: 'id' },
        });
      }
      if (lastId !== null && id < lastId) {
        throw new PipelineError('PIPELINE_INPUT_INVALID', `source part ${args.source_url} is not sorted by id (at ${id}); consolidate reads normalized datasets`, {
          details: { path: args.source_url },
        });
      }
      lastId = id;
      let keep = true;
      for (let i = 0; i < args.filters.length && keep; i++) {
        const filter = args.filters[i] as FilterConfig;
        const row = await (cursors[i] as AttributeCursor).seek(id);
        const count = counts[i] as FilterCounts;
        if (row === undefined) {
          count.missing += 1;
          keep = false;
        } else if (!passes(filter, filterValue(filter, row[filter.name], id), id)) {
          count.rejected += 1;
          keep = false;
        }
      }
      if (keep && doc['text'] !== '') {
        docsOut += 1;
        await out.write(doc);
      }
    }
    await out.close();
  } finally {
    await Promise.all(cursors.map((c) => c.close()));
  }
  return { docs_in: docsIn, docs_out: docsOut, filters: counts };
});
