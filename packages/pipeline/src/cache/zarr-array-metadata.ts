import { z } from 'zod';
import { PipelineError } from '../errors.js';

/** Element types of the cache's arrays: offsets are int64; token data is int32 or int64. */
export type ArrayDtype = 'int32' | 'int64';

/** Bytes per element of `dtype`. */
export function dtypeBytes(dtype: ArrayDtype): number {
  return dtype === 'int32' ? 4 : 8;
}

/** Nominal length of every array (2^54); the real extent comes from the offsets. */
export const NOMINAL_ARRAY_LENGTH = 2 ** 54;
/** Elements per inner (read) chunk. */
export const INNER_CHUNK_ELEMENTS = 262_144;
/** Elements per outer chunk, i.e. per shard file `c/<k>`. */
export const SHARD_ELEMENTS = 134_217_728;
/** Inner chunks per shard file. */
export const CHUNKS_PER_SHARD = SHARD_ELEMENTS / INNER_CHUNK_ELEMENTS;

/**
 * The `zarr.json` of a 1-D array exactly as Levanter creates it through TensorStore: sharded outer
 * chunks, blosc(lz4, clevel 5, shuffle) inner chunks and a crc32c-checked index. The reader insists
 * on the chunk shapes, the sharding codec and a blosc codec with `clevel: 5`.
 */
export function zarrArrayMetadata(dtype: ArrayDtype): Record<string, unknown> {
  return {
    zarr_format: 3,
    node_type: 'array',
    shape: [NOMINAL_ARRAY_LENGTH],
    data_type: dtype,
    chunk_grid: { name: 'regular', configuration: { chunk_shape: [SHARD_ELEMENTS] } },
    chunk_key_encoding: { name: 'default' },
    fill_value: 0,
    codecs: [
      {
        name: 'sharding_indexed',
        configuration: {
          chunk_shape: [INNER_CHUNK_ELEMENTS],
          codecs: [
            { name: 'bytes', configuration: { endian: 'little' } },
            { name: 'blosc', configuration: { cname: 'lz4', clevel: 5, shuffle: 'shuffle', typesize: dtypeBytes(dtype), blocksize: 0 } },
          ],
          index_codecs: [{ name: 'bytes', configuration: { endian: 'little' } }, { name: 'crc32c' }],
        },
      },
    ],
  };
}

const CodecSchema = z.object({ name: z.string(), configuration: z.record(z.string(), z.unknown()).optional() });
const ZarrJsonSchema = z.object({
  zarr_format: z.literal(3),
  node_type: z.literal('array'),
  shape: z.tuple([z.number()]),
  data_type: z.enum(['int32', 'int64']),
  chunk_grid: z.object({ name: z.literal('regular'), configuration: z.object({ chunk_shape: z.tuple([z.number().int().positive()]) }) }),
  chunk_key_encoding: z.object({ name: z.literal('default'), configuration: z.object({ separator: z.literal('/') }).optional() }),
  fill_value: z.literal(0),
  codecs: z.tuple([
    z.object({
      name: z.literal('sharding_indexed'),
      configuration: z.object({
        chunk_shape: z.tuple([z.number().int().positive()]),
        codecs: z.array(CodecSchema),
        index_codecs: z.array(CodecSchema),
        index_location: z.enum(['start', 'end']).optional(),
      }),
    }),
  ]),
});

/** The parts of a `zarr.json` the reader relies on. */
export interface ZarrArrayLayout {
  dtype: ArrayDtype;
  shardElements: number;
  innerChunkElements: number;
}

/**
 * Checks a parsed `zarr.json` against the layout this package reads (the one Levanter writes) and
 * returns its dtype and chunk sizes.
 * @throws {PipelineError} PIPELINE_CACHE_INVALID describing the first unsupported property (zod's error for a
 * `zarr.json` of another shape)
 */
export function parseZarrArrayMetadata(json: unknown): ZarrArrayLayout {
  const meta = ZarrJsonSchema.parse(json);
  const sharding = meta.codecs[0].configuration;
  const names = sharding.codecs.map((c) => c.name);
  const endian = sharding.codecs.find((c) => c.name === 'bytes')?.configuration?.['endian'];
  if (names.join(',') !== 'bytes,blosc' || (endian !== undefined && endian !== 'little')) {
    throw new PipelineError('PIPELINE_CACHE_INVALID', `unsupported inner codecs ${JSON.stringify(names)} (expected little-endian bytes, then blosc)`);
  }
  if (sharding.index_codecs.map((c) => c.name).join(',') !== 'bytes,crc32c' || (sharding.index_location ?? 'end') !== 'end') {
    throw new PipelineError('PIPELINE_CACHE_INVALID', 'unsupported shard index (expected bytes + crc32c at the end of the shard)');
  }
  const shardElements = meta.chunk_grid.configuration.chunk_shape[0];
  const innerChunkElements = sharding.chunk_shape[0];
  if (shardElements % innerChunkElements !== 0) throw new PipelineError('PIPELINE_CACHE_INVALID', 'the outer chunk is not a whole number of inner chunks');
  return { dtype: meta.data_type, shardElements, innerChunkElements };
}
