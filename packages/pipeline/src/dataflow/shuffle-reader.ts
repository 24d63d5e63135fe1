import { PipelineError } from '../errors.js';
import { openParquetFile } from '../formats/parquet-file.js';
import type { ParquetFile } from '../formats/parquet-file.js';
import { readParquetRecords, readParquetRowGroups } from '../formats/parquet-records.js';
import { readParquetUtf8Columns } from '../formats/parquet-utf8-column.js';
import type { Utf8ColumnGroup } from '../formats/parquet-utf8-column.js';
import { utf8ValueAt } from '../formats/utf8-column.js';
import type { Utf8Column } from '../formats/utf8-column.js';
import { PlainRunPages, isPlainRunColumn, readPlainRunColumn } from './plain-run-column.js';
import { forEachMerged, mergeSorted } from './sorted-merge.js';
import type { RecordVisitor, SortedBatchSource } from './sorted-merge.js';

/** Options of {@link readShufflePartition}. */
export interface ReadShuffleOptions {
  /** The partition's run files, from `shuffleFilesOf(mapOutputs, p)`. */
  files: readonly string[];
  /** Merge the (sorted) runs by this column; without it runs are read one after another. */
  sortKey?: string;
  /**
   * Records of the partition still in memory (a task that maps and reduces in one process:
   * `ShuffleWriter.closeInMemory`), sorted by `sortKey`; they come after the files (they were added last).
   */
  buffered?: readonly Record<string, unknown>[];
  signal?: AbortSignal;
}

/**
 * The reduce side of a shuffle: streams one partition's records, merged in `sortKey` order when given
 * (each run holds one row group at a time in memory), else concatenated in file order; records still
 * in memory (`buffered`) come last.
 */
export async function* readShufflePartition(options: ReadShuffleOptions): AsyncGenerator<Record<string, unknown>> {
  const opts = options.signal === undefined ? {} : { signal: options.signal };
  const buffered = options.buffered ?? [];
  if (options.sortKey === undefined) {
    for (const f of options.files) yield* readParquetRecords(f, opts);
    yield* buffered;
    return;
  }
  if (options.files.length === 0) {
    yield* buffered;
    return;
  }
  const sources: AsyncIterable<Record<string, unknown>>[] = options.files.map((f) => readParquetRecords(f, opts));
  if (buffered.length > 0) sources.push(fromArray(buffered));
  yield* mergeSorted(sources, options.sortKey);
}

async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

/** Options of {@link forEachShuffleRecord}. */
export interface VisitShuffleOptions extends ReadShuffleOptions {
  /**
   * String columns handed over as their UTF-8 bytes (a `Uint8Array` view into the run's column chunk, or
   * into the byte reader's column when the chunk is compressed or otherwise encoded; a null stays `null`)
   * instead of as strings, with no JavaScript string per value: for consumers that write or hash them as
   * bytes (a document's text). A view keeps its chunk in memory as long as it is referenced. Not the sort key.
   */
  utf8Columns?: readonly string[];
}

/**
 * The reduce side of a shuffle, as {@link readShufflePartition} (the same records in the same order)
 * but a row group at a time: calls `visit` with each record, merging runs synchronously and awaiting
 * only a run that needs its next row group, or the promise `visit` returns (return `undefined` for a
 * record that needs no waiting, so most records cost no promise). `utf8Columns` come as bytes.
 *
 * @throws {PipelineError} as the parquet readers (PIPELINE_INPUT_NOT_FOUND, PIPELINE_INPUT_INVALID), or
 *   whatever `visit` throws
 */
export async function forEachShuffleRecord(options: VisitShuffleOptions, visit: RecordVisitor<Record<string, unknown>>): Promise<void> {
  const sources: RunSource[] = [];
  try {
    for (const url of options.files) sources.push(await openRun(url, options.utf8Columns ?? [], options.signal));
    const buffered = options.buffered ?? [];
    if (buffered.length > 0) sources.push(arraySource(buffered));
    if (options.sortKey !== undefined) {
      await forEachMerged(sources, options.sortKey, visit);
      return;
    }
    const call = typeof visit === 'function' ? visit : (r: Record<string, unknown>): Promise<void> | undefined => visit.visit(r);
    for (const source of sources) {
      while (await source.next()) {
        const { rows } = source;
        for (let i = 0; i < rows.length; i++) {
          const pending = call(rows[i] as Record<string, unknown>);
          if (pending !== undefined) await pending;
        }
      }
    }
  } finally {
    await Promise.all(sources.map((s) => s.close()));
  }
}

interface RunSource extends SortedBatchSource<Record<string, unknown>> {
  close(): Promise<void>;
}

function arraySource(rows: readonly Record<string, unknown>[]): RunSource {
  let done = false;
  const source: RunSource = {
    rows: [],
    index: 0,
    next() {
      source.index = 0;
      source.rows = done ? [] : rows;
      const more = !done;
      done = true;
      return Promise.resolve(more);
    },
    close: () => Promise.resolve(),
  };
  return source;
}

const decoder = new TextDecoder();

/**
 * One run file read a row group at a time. Columns whose chunks are PLAIN and uncompressed (the shuffle
 * writer writes ids and texts so) are read as views of one chunk read: `utf8Columns` handed over as the
 * views, the others decoded to strings. Other `utf8Columns` go through the byte reader, and the rest
 * through hyparquet's record reader.
 */
async function openRun(url: string, utf8Columns: readonly string[], signal: AbortSignal | undefined): Promise<RunSource> {
  return new RunFileSource(url, await openParquetFile(url), utf8Columns, signal);
}

/**
 * A run file as a {@link SortedBatchSource}. A class, so every run of every reduce task calls the same
 * `next` (the engine compiles it once, not once per run's closure), and the per-row loops are small
 * functions of their own, so the async `next` is never recompiled around them.
 */
class RunFileSource implements RunSource {
  rows: Record<string, unknown>[] = [];
  index = 0;
  private group = -1;
  private readonly groups: number;
  private readonly plain: readonly string[];
  private readonly asBytes: readonly string[];
  private readonly records: AsyncGenerator<Record<string, unknown>[]> | null;
  private readonly columns: AsyncGenerator<Utf8ColumnGroup>[];
  /** When every column is plain: the current row group's columns, read a page at a time. */
  private pages: PlainRunPages[] | null = null;

  constructor(
    private readonly url: string,
    private readonly file: ParquetFile,
    private readonly utf8Columns: readonly string[],
    private readonly signal: AbortSignal | undefined,
  ) {
    const opts = signal === undefined ? {} : { signal };
    const plain = file.columns.filter((c) => isPlainRunColumn(file, c));
    const asBytes = utf8Columns.filter((c) => file.columns.includes(c) && !plain.includes(c));
    const rest = file.columns.filter((c) => !plain.includes(c) && !asBytes.includes(c));
    this.plain = plain;
    this.asBytes = asBytes;
    this.records = rest.length === 0 ? null : readParquetRowGroups(file, { ...opts, columns: rest });
    this.columns = asBytes.map((c) => readParquetUtf8Columns(file, c, opts));
    this.groups = file.metadata.row_groups.length;
  }

  async next(): Promise<boolean> {
    if (this.records === null && this.asBytes.length === 0 && this.plain.length > 0) return this.nextPages();
    const { file, url } = this;
    this.index = 0;
    this.rows = [];
    this.group += 1;
    const group = this.group;
    if (group >= this.groups) return false;
    this.signal?.throwIfAborted();
    let rows: Record<string, unknown>[] | null = null;
    if (this.records !== null) {
      const n = await this.records.next();
      if (n.done === true) throw corrupt(url);
      rows = n.value;
    }
    const count = Number(file.metadata.row_groups[group]?.num_rows ?? 0);
    if (rows === null) rows = emptyRows(count);
    if (rows.length !== count) throw corrupt(url);
    for (const name of this.plain) {
      const values = await readPlainRunColumn(file, group, name);
      if (this.utf8Columns.includes(name)) setColumn(rows, name, values);
      else setDecodedColumn(rows, name, values);
    }
    for (let c = 0; c < this.asBytes.length; c++) {
      const n = await (this.columns[c] as AsyncGenerator<Utf8ColumnGroup>).next();
      if (n.done === true || n.value.column.length !== count) throw corrupt(url);
      setUtf8Column(rows, this.asBytes[c] as string, n.value.column);
    }
    this.rows = rows;
    return true;
  }

  /**
   * A run whose columns are all plain (normalize's): the next batch is as many rows as every column has
   * read, a page of the largest column or so, so the run's memory is a page per column, not its whole
   * chunks.
   */
  private async nextPages(): Promise<boolean> {
    this.index = 0;
    this.rows = [];
    let pages = this.pages;
    while (pages === null || (pages[0] as PlainRunPages).remaining === 0) {
      this.group += 1;
      if (this.group >= this.groups) {
        this.pages = null;
        return false;
      }
      this.signal?.throwIfAborted();
      const group = this.group;
      pages = this.plain.map((name) => new PlainRunPages(this.file, group, name));
      this.pages = pages;
    }
    let n = Infinity;
    for (const column of pages) {
      if (column.available === 0) await column.fill();
      n = Math.min(n, column.available);
    }
    if (n === 0) throw corrupt(this.url);
    const rows = emptyRows(n);
    for (let c = 0; c < pages.length; c++) {
      const name = this.plain[c] as string;
      const values = (pages[c] as PlainRunPages).take(n);
      if (this.utf8Columns.includes(name)) setColumn(rows, name, values);
      else setDecodedColumn(rows, name, values);
    }
    this.rows = rows;
    return true;
  }

  async close(): Promise<void> {
    await Promise.all([this.records?.return(undefined), ...this.columns.map((it) => it.return(undefined))]);
    await this.file.close();
  }
}

function emptyRows(count: number): Record<string, unknown>[] {
  const rows = new Array<Record<string, unknown>>(count);
  for (let i = 0; i < count; i++) rows[i] = {};
  return rows;
}

function setColumn(rows: Record<string, unknown>[], name: string, values: readonly unknown[]): void {
  for (let i = 0; i < rows.length; i++) (rows[i] as Record<string, unknown>)[name] = values[i];
}

function setDecodedColumn(rows: Record<string, unknown>[], name: string, values: readonly Uint8Array[]): void {
  for (let i = 0; i < rows.length; i++) (rows[i] as Record<string, unknown>)[name] = decoder.decode(values[i]);
}

function setUtf8Column(rows: Record<string, unknown>[], name: string, column: Utf8Column): void {
  const { valid } = column;
  for (let i = 0; i < rows.length; i++) (rows[i] as Record<string, unknown>)[name] = valid !== null && valid[i] === 0 ? null : utf8ValueAt(column, i);
}

function corrupt(url: string): PipelineError {
  return new PipelineError('PIPELINE_INPUT_INVALID', `the columns of shuffle run ${url} have different row counts: the file is corrupt`, { details: { path: url } });
}
