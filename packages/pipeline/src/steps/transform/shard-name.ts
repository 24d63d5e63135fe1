/**
 * The name of output shard `index` of `total`: `data-{index:05d}-of-{total:05d}.jsonl.gz`.
 *
 * @example shardName(0, 16) // 'data-00000-of-00016.jsonl.gz'
 */
export function shardName(index: number, total: number): string {
  return `data-${String(index).padStart(5, '0')}-of-${String(total).padStart(5, '0')}.jsonl.gz`;
}
