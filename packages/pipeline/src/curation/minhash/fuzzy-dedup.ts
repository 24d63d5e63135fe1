import { PipelineError } from '../../errors.js';
import { ConnectedComponents } from './connected-components.js';
import { createMinHasher } from './minhash.js';
import type { MinHasher } from './minhash.js';
import type { MinHashParams } from './minhash-params.js';

/** A document as fuzzy dedup reads it: its id and its text (`null` counts as empty). */
export interface DedupRecord {
  readonly id: string;
  readonly text: unknown;
}

/** One document's LSH buckets (the map stage's output; Marin's MinHash attribute row). */
export interface BucketRow {
  id: string;
  buckets: string[];
}

/** The fuzzy-duplicate attribute of one document. */
export interface FuzzyDupAttribute {
  id: string;
  /** True for every member of a duplicate cluster except its canonical document: the ones to drop. */
  fuzzy_duplicate: boolean;
  /** The canonical document's id for cluster members, `null` for a document with no near duplicate. */
  dup_cluster_id: string | null;
  /** True for exactly one member of each cluster (the smallest id; on equal ids, the earliest dataset). */
  is_cluster_canonical: boolean;
}

/** Counters of the MinHash stage. */
export interface MinHashCounters {
  documents: number;
  emptySignatures: number;
  textTruncated: number;
}

/** Where a record came from, for error messages. */
export interface RecordOrigin {
  /** Dataset or file the part belongs to. */
  source: string;
}

/**
 * The map stage: each document's LSH buckets. Documents whose text is empty after cleaning have no signature and
 * yield no row (counted in `emptySignatures`).
 * @throws {PipelineError} PIPELINE_INPUT_INVALID for a text that is neither a string nor null, naming the source and id
 */
export async function* minhashBuckets(
  records: AsyncIterable<DedupRecord> | Iterable<DedupRecord>,
  hasher: MinHasher,
  origin: RecordOrigin,
  counters: MinHashCounters = { documents: 0, emptySignatures: 0, textTruncated: 0 },
): AsyncGenerator<BucketRow> {
  const cap = hasher.params.text_cap_chars;
  for await (const record of records) {
    const text = record.text ?? '';
    if (typeof text !== 'string') {
      throw new PipelineError('PIPELINE_INPUT_INVALID', `document "${record.id}" in "${origin.source}" has a ${typeof text} text; fuzzy dedup needs string (or null) texts`, {
        details: { source: origin.source, id: record.id },
      });
    }
    if (cap !== null && text.length > cap) counters.textTruncated++;
    const signature = hasher.signature(text);
    if (signature === null) {
      counters.emptySignatures++;
      continue;
    }
    counters.documents++;
    yield { id: record.id, buckets: hasher.buckets(signature) };
  }
}

/**
 * The graph node of a document: its id, then its dataset's index, so the same id in two datasets stays two nodes
 * (as Marin's per-source tag does) and the smallest key is the smallest id, earliest dataset first.
 */
export function nodeKey(sourceIndex: number, id: string): string {
  return `${id}\u0000${sourceIndex.toString().padStart(6, '0')}`;
}

/** The document id inside a {@link nodeKey}. */
export function idOfNodeKey(key: string): string {
  return key.slice(0, key.lastIndexOf('\u0000'));
}

/** The fuzzy-duplicate attribute of one document, from the components of the whole LSH graph. */
export function fuzzyDupAttribute(cc: ConnectedComponents, sourceIndex: number, id: string): FuzzyDupAttribute {
  const key = nodeKey(sourceIndex, id);
  const rep = cc.representative(key);
  if (rep === undefined || cc.componentSize(key) < 2) return { id, fuzzy_duplicate: false, dup_cluster_id: null, is_cluster_canonical: false };
  const canonical = rep === key;
  return { id, fuzzy_duplicate: !canonical, dup_cluster_id: idOfNodeKey(rep), is_cluster_canonical: canonical };
}

/** One part (file) of a dataset given to {@link fuzzyDedupInMemory}. */
export interface InMemoryPart {
  name: string;
  /** Read twice: once for buckets, once for the attribute rows. */
  records: () => AsyncIterable<DedupRecord> | Iterable<DedupRecord>;
}

/** The result of {@link fuzzyDedupInMemory}: attribute rows per dataset per part, in input order. */
export interface InMemoryDedupResult {
  attributes: { name: string; parts: { name: string; rows: FuzzyDupAttribute[] }[] }[];
  counters: MinHashCounters & { clusters: number; clusterMembers: number; duplicates: number };
}

/**
 * Fuzzy dedup of several datasets together in one process: MinHash + LSH buckets, connected components over the
 * whole bucket graph, one canonical document kept per component. The staged, sharded version (map → shuffle by
 * bucket → components → attributes) runs the same functions.
 */
export async function fuzzyDedupInMemory(
  datasets: readonly { name: string; parts: readonly InMemoryPart[] }[],
  params: MinHashParams,
): Promise<InMemoryDedupResult> {
  const hasher = createMinHasher(params);
  const counters = { documents: 0, emptySignatures: 0, textTruncated: 0 };
  const buckets = new Map<string, string[]>();
  for (const [sourceIndex, dataset] of datasets.entries()) {
    for (const part of dataset.parts) {
      for await (const row of minhashBuckets(part.records(), hasher, { source: `${dataset.name}/${part.name}` }, counters)) {
        const key = nodeKey(sourceIndex, row.id);
        for (const b of row.buckets) {
          const members = buckets.get(b);
          if (members === undefined) buckets.set(b, [key]);
          else members.push(key);
        }
      }
    }
  }
  const cc = new ConnectedComponents();
  for (const members of buckets.values()) if (members.length > 1) cc.unionAll(members);
  let clusters = 0;
  let clusterMembers = 0;
  let duplicates = 0;
  const attributes: InMemoryDedupResult['attributes'] = [];
  for (const [sourceIndex, dataset] of datasets.entries()) {
    const parts: { name: string; rows: FuzzyDupAttribute[] }[] = [];
    for (const part of dataset.parts) {
      const rows: FuzzyDupAttribute[] = [];
      for await (const record of part.records()) {
        const row = fuzzyDupAttribute(cc, sourceIndex, record.id);
        if (row.dup_cluster_id !== null) clusterMembers++;
        if (row.is_cluster_canonical) clusters++;
        if (row.fuzzy_duplicate) duplicates++;
        rows.push(row);
      }
      parts.push({ name: part.name, rows });
    }
    attributes.push({ name: dataset.name, parts });
  }
  return { attributes, counters: { ...counters, clusters, clusterMembers, duplicates } };
}
