import type { JsonValue } from '@marin/fray';
import { atomicWrite, exists, prefixJoin, readText } from '@marin/rigging';
import { listPartFiles } from '../../attributes/attribute-dataset.js';
import { dataflowTask } from '../../dataflow/dataflow-task.js';
import type { DataflowTaskArgs } from '../../dataflow/dataflow-task.js';
import { partitionOfKey } from '../../dataflow/partition-of.js';
import { runTasks } from '../../dataflow/run-tasks.js';
import { readShufflePartition } from '../../dataflow/shuffle-reader.js';
import { createShuffleWriter, shuffleFilesOf } from '../../dataflow/shuffle-writer.js';
import type { ShuffleMapOutput } from '../../dataflow/shuffle-writer.js';
import { writeParquetPart } from '../../formats/parquet-part-writer.js';
import { readParquetRecords } from '../../formats/parquet-records.js';
import type { ParquetColumnSpec } from '../../formats/parquet-schema.js';
import { ConnectedComponents } from './connected-components.js';
import { idOfNodeKey, nodeKey } from './fuzzy-dedup.js';
import { readMinhashManifest } from './minhash-attrs.js';
import { requireSameMinHashParams } from './minhash-params.js';
import type { MinHashParams } from './minhash-params.js';

/** Columns of a fuzzy-duplicate attribute part. */
export const FUZZY_DUP_COLUMNS: ParquetColumnSpec[] = [
  { name: 'id', type: 'string', nullable: false },
  { name: 'fuzzy_duplicate', type: 'bool', nullable: false },
  { name: 'dup_cluster_id', type: 'string', nullable: true },
  { name: 'is_cluster_canonical', type: 'bool', nullable: false },
];

const BUCKET_COLUMNS: ParquetColumnSpec[] = [
  { name: 'bucket', type: 'string', nullable: false },
  { name: 'node', type: 'string', nullable: false },
];
const EDGE_COLUMNS: ParquetColumnSpec[] = [
  { name: 'a', type: 'string', nullable: false },
  { name: 'b', type: 'string', nullable: false },
];
const ASSIGNMENT_COLUMNS: ParquetColumnSpec[] = [
  { name: 'node', type: 'string', nullable: false },
  { name: 'rep', type: 'string', nullable: false },
];

/** The file written last by {@link computeFuzzyDups}: params, per-source attribute directories, counters. */
export const FUZZY_DUPS_MANIFEST = 'fuzzy_dups.json';

type Json = { [key: string]: JsonValue };

/** Map task: routes each (bucket, document) pair of one MinHash part to its bucket's shuffle partition. */
export interface FuzzyMapArgs extends DataflowTaskArgs {
  minhash_url: string;
  part_index: number;
  shuffle_dir: string;
  num_partitions: number;
}

/** Exported for Fray jobs. */
export const fuzzyDupsMapTask = dataflowTask<FuzzyMapArgs, ShuffleMapOutput>(async (args, signal) => {
  const shuffle = createShuffleWriter({ dir: args.shuffle_dir, mapTask: `map-${String(args.part_index).padStart(6, '0')}`, numPartitions: args.num_partitions, columns: BUCKET_COLUMNS, sortKey: 'bucket' });
  for await (const r of readParquetRecords(args.minhash_url, { columns: ['id', 'buckets'], signal })) {
    const node = nodeKey(args.part_index, r['id'] as string);
    for (const bucket of (r['buckets'] as string).split(' ')) await shuffle.add(partitionOfKey(bucket, args.num_partitions), { bucket, node });
  }
  return shuffle.close();
});

/** Reduce task: one bucket partition, merged by bucket; each bucket with two or more documents becomes edges. */
export interface FuzzyBucketsArgs extends DataflowTaskArgs {
  files: string[];
  edges_url: string;
}

/** Exported for Fray jobs. */
export const fuzzyDupsBucketsTask = dataflowTask<FuzzyBucketsArgs, Json>(async (args, signal) => {
  let edges = 0;
  const rows = (async function* () {
    let current: string | null = null;
    let first: string | null = null;
    for await (const r of readShufflePartition({ files: args.files, sortKey: 'bucket', signal })) {
      const bucket = r['bucket'] as string;
      const node = r['node'] as string;
      if (bucket !== current) {
        current = bucket;
        first = node;
        continue;
      }
      if (first !== null && node !== first) {
        edges++;
        yield { a: first, b: node };
      }
    }
  })();
  const written = await writeParquetPart(args.edges_url, rows, { columns: EDGE_COLUMNS });
  return { edges_url: args.edges_url, edges, rows: written.rows };
});

/** The components task: union-find over every edge; each clustered document's representative, shuffled by part. */
export interface FuzzyComponentsArgs extends DataflowTaskArgs {
  edge_files: string[];
  shuffle_dir: string;
  num_parts: number;
}

/** Exported for Fray jobs. */
export const fuzzyDupsComponentsTask = dataflowTask<FuzzyComponentsArgs, Json>(async (args, signal) => {
  const cc = new ConnectedComponents();
  for (const f of args.edge_files) for await (const r of readParquetRecords(f, { signal })) cc.union(r['a'] as string, r['b'] as string);
  const shuffle = createShuffleWriter({ dir: args.shuffle_dir, mapTask: 'components', numPartitions: Math.max(1, args.num_parts), columns: ASSIGNMENT_COLUMNS, sortKey: 'node' });
  let clusters = 0;
  for (const { key, representative } of cc.entries()) {
    if (key === representative) clusters++;
    await shuffle.add(partOfNodeKey(key), { node: key, rep: representative });
  }
  const out = await shuffle.close();
  return { ...out, clusters, members: cc.nodeCount };
});

function partOfNodeKey(key: string): number {
  return Number(key.slice(key.lastIndexOf('\u0000') + 1));
}

/** Attribute task: one source part's documents, in order, with their fuzzy-duplicate attribute. */
export interface FuzzyAttributesArgs extends DataflowTaskArgs {
  source_url: string;
  part_index: number;
  assignment_files: string[];
  output_url: string;
}

/** Exported for Fray jobs. */
export const fuzzyDupsAttributesTask = dataflowTask<FuzzyAttributesArgs, Json>(async (args, signal) => {
  const reps = new Map<string, string>();
  for (const f of args.assignment_files) for await (const r of readParquetRecords(f, { signal })) reps.set(r['node'] as string, r['rep'] as string);
  let documents = 0;
  let duplicates = 0;
  let canonicals = 0;
  const rows = (async function* () {
    for await (const r of readParquetRecords(args.source_url, { columns: ['id'], signal })) {
      const id = r['id'] as string;
      const key = nodeKey(args.part_index, id);
      const rep = reps.get(key);
      documents++;
      if (rep === undefined) {
        yield { id, fuzzy_duplicate: false, dup_cluster_id: null, is_cluster_canonical: false };
        continue;
      }
      const canonical = rep === key;
      if (canonical) canonicals++;
      else duplicates++;
      yield { id, fuzzy_duplicate: !canonical, dup_cluster_id: idOfNodeKey(rep), is_cluster_canonical: canonical };
    }
  })();
  await writeParquetPart(args.output_url, rows, { columns: FUZZY_DUP_COLUMNS });
  return { documents, duplicates, canonicals };
});

/** Options of {@link computeFuzzyDups}. */
export interface ComputeFuzzyDupsOptions {
  /** MinHash attribute datasets (from `computeMinhashAttrs`), deduplicated together; their params must be equal. */
  inputs: readonly string[];
  outputDir: string;
  /** Shuffle partitions of the bucket graph. @default 8 */
  numPartitions?: number;
  /** @default `<outputDir>/.work` */
  workDir?: string;
  /** @default 4 */
  maxParallelism?: number;
  /** One Fray job per task; `null` runs in this process. @default null */
  resources?: Parameters<typeof runTasks>[0]['resources'];
  signal?: AbortSignal;
  /** @default "fuzzy-dups" */
  jobNamePrefix?: string;
}

/** What {@link computeFuzzyDups} wrote (also in `fuzzy_dups.json`). */
export interface FuzzyDupsManifest {
  params: MinHashParams;
  /** Per input, in input order: its source dataset and the attribute directory co-partitioned with it. */
  sources: { minhash: string; source: string; attr_dir: string }[];
  counters: { documents: number; clusters: number; cluster_members: number; duplicates: number; edges: number };
}

/**
 * Marin's `compute_fuzzy_dups_attrs` on storage files: the LSH bucket graph of every document of every input is
 * shuffled by bucket (map per MinHash part), each bucket partition becomes edges (reduce), one task joins all edges
 * into connected components (only documents that share a bucket take memory), and each source part gets a
 * co-partitioned attribute part under `outputs/source_NNN/` with one row per document (`fuzzy_duplicate`,
 * `dup_cluster_id`, `is_cluster_canonical`). Every task is resumable; `fuzzy_dups.json` is written last.
 * @throws {PipelineError} PIPELINE_SCHEMA_MISMATCH when the inputs' MinHash params differ (naming the input)
 */
export async function computeFuzzyDups(options: ComputeFuzzyDupsOptions): Promise<FuzzyDupsManifest> {
  const manifestUrl = prefixJoin(options.outputDir, FUZZY_DUPS_MANIFEST);
  if (await exists(manifestUrl)) return JSON.parse(await readText(manifestUrl)) as FuzzyDupsManifest;
  const manifests = await Promise.all(options.inputs.map(async (dir) => ({ dir, m: await readMinhashManifest(dir) })));
  const params = requireSameMinHashParams(manifests.map(({ dir, m }) => ({ name: dir, params: m.params })));
  const workDir = options.workDir ?? prefixJoin(options.outputDir, '.work');
  const numPartitions = options.numPartitions ?? 8;
  const common = {
    workDir,
    maxParallelism: options.maxParallelism ?? 4,
    resources: options.resources ?? null,
    signal: options.signal ?? new AbortController().signal,
    jobNamePrefix: options.jobNamePrefix ?? 'fuzzy-dups',
  };
  // Every part of every input gets one global index, in input order: the node keys carry it.
  const parts: { minhash: string; source: string; output: string; name: string }[] = [];
  const sources: FuzzyDupsManifest['sources'] = [];
  for (const [i, { dir, m }] of manifests.entries()) {
    const attrDir = prefixJoin(options.outputDir, `outputs/source_${String(i).padStart(3, '0')}`);
    sources.push({ minhash: dir, source: m.source, attr_dir: attrDir });
    for (const url of await listPartFiles(dir)) {
      const name = url.slice(url.lastIndexOf('/') + 1);
      parts.push({ minhash: url, source: prefixJoin(m.source, name), output: prefixJoin(attrDir, name), name: `${String(i).padStart(3, '0')}-${name.replace(/\.parquet$/, '')}` });
    }
  }
  const mapOutputs = await runTasks<FuzzyMapArgs, ShuffleMapOutput>({
    ...common,
    phase: 'map',
    tasks: parts.map((p, g) => ({ name: p.name, args: { minhash_url: p.minhash, part_index: g, shuffle_dir: prefixJoin(workDir, 'buckets'), num_partitions: numPartitions } })),
    task: fuzzyDupsMapTask,
    exportName: 'fuzzyDupsMapTask',
  });
  const edgeResults = await runTasks<FuzzyBucketsArgs, Json>({
    ...common,
    phase: 'edges',
    tasks: Array.from({ length: numPartitions }, (_, p) => ({
      name: `edges-${String(p).padStart(5, '0')}`,
      args: { files: shuffleFilesOf(mapOutputs, p), edges_url: prefixJoin(workDir, `edges/part-${String(p).padStart(5, '0')}.parquet`) },
    })),
    task: fuzzyDupsBucketsTask,
    exportName: 'fuzzyDupsBucketsTask',
  });
  const [components] = await runTasks<FuzzyComponentsArgs, ShuffleMapOutput & Json>({
    ...common,
    phase: 'components',
    tasks: [{ name: 'components', args: { edge_files: edgeResults.map((r) => r['edges_url'] as string), shuffle_dir: prefixJoin(workDir, 'assignments'), num_parts: parts.length } }],
    task: fuzzyDupsComponentsTask,
    exportName: 'fuzzyDupsComponentsTask',
  });
  const assignments = components as ShuffleMapOutput & Json;
  const attrResults = await runTasks<FuzzyAttributesArgs, Json>({
    ...common,
    phase: 'attributes',
    tasks: parts.map((p, g) => ({ name: p.name, args: { source_url: p.source, part_index: g, assignment_files: shuffleFilesOf([assignments], g), output_url: p.output } })),
    task: fuzzyDupsAttributesTask,
    exportName: 'fuzzyDupsAttributesTask',
  });
  const sum = (rs: Json[], k: string): number => rs.reduce((s, r) => s + Number(r[k] ?? 0), 0);
  const manifest: FuzzyDupsManifest = {
    params,
    sources,
    counters: {
      documents: sum(attrResults, 'documents'),
      clusters: Number(assignments['clusters'] ?? 0),
      cluster_members: Number(assignments['members'] ?? 0),
      duplicates: sum(attrResults, 'duplicates'),
      edges: sum(edgeResults, 'edges'),
    },
  };
  await atomicWrite(manifestUrl, `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
