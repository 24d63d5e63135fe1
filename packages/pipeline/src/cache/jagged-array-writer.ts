import type { BloscCompression } from './blosc-frame.js';
import { ShardedArrayWriter } from './sharded-array-writer.js';
import type { ArrayDtype } from './zarr-array-metadata.js';

/** Options of {@link JaggedArrayWriter.create}. */
export interface JaggedArrayWriterOptions {
  /** Element type of `data` (offsets are always int64). */
  dtype: ArrayDtype;
  /** Blosc payload of both arrays' chunks. */
  compression: BloscCompression;
  /** Blosc block size in bytes. @default 262144 */
  blocksize?: number;
}

/** What a finished jagged array holds. */
export interface JaggedArrayCounts {
  rows: number;
  elements: number;
}

/**
 * Levanter's jagged array: `<dir>/offsets` (int64) and `<dir>/data`. `offsets[0]` is the row count and
 * `offsets[i + 1]` the exclusive end of row `i` in `data`, so row `i` is `data[offsets[i]:offsets[i + 1]]`
 * with `offsets[0]` read as 0. The row count is only known at the end, so the offsets writer keeps its
 * first chunk in memory and patches element 0 in `finish`.
 */
export class JaggedArrayWriter {
  private rows = 0;
  private elements = 0;
  private readonly one = [0];

  private constructor(
    private readonly offsets: ShardedArrayWriter,
    private readonly data: ShardedArrayWriter,
  ) {}

  /** A writer for the jagged array under `dirUrl` (e.g. `<cache>/input_ids`). */
  static async create(dirUrl: string, opts: JaggedArrayWriterOptions): Promise<JaggedArrayWriter> {
    const base = dirUrl.replace(/\/+$/, '');
    const extra = opts.blocksize !== undefined ? { blocksize: opts.blocksize } : {};
    const offsets = ShardedArrayWriter.create(`${base}/offsets`, { dtype: 'int64', compression: opts.compression, holdFirstChunk: true, ...extra });
    const data = ShardedArrayWriter.create(`${base}/data`, { dtype: opts.dtype, compression: opts.compression, ...extra });
    await offsets.append([0]); // element 0: the row count, patched in finish()
    return new JaggedArrayWriter(offsets, data);
  }

  /** Appends one row. */
  async append(row: ArrayLike<number>): Promise<void> {
    await this.data.append(row);
    this.rows++;
    this.elements += row.length;
    this.one[0] = this.elements;
    await this.offsets.append(this.one);
  }

  /** Rows appended so far. */
  get numRows(): number {
    return this.rows;
  }

  /** Elements (tokens) appended so far. */
  get numElements(): number {
    return this.elements;
  }

  /** Writes the row count into `offsets[0]` and finishes both arrays. */
  async finish(): Promise<JaggedArrayCounts> {
    this.offsets.patch(0, this.rows);
    try {
      await this.data.finish();
      await this.offsets.finish();
    } catch (e) {
      this.abort();
      throw e;
    }
    return { rows: this.rows, elements: this.elements };
  }

  /** Drops unfinished shard files of both arrays. */
  abort(): void {
    this.offsets.abort();
    this.data.abort();
  }
}
