/**
 * The shuffle partition of a 32-hex id (such as normalize's xxh3-128 ids): its leading 52 bits modulo
 * `numPartitions`. Ids are uniform hashes, so partitions are balanced.
 */
export function partitionOfHexId(id: string, numPartitions: number): number {
  // `| 0` (the remainder is already a small integer): a remainder of a 52-bit double is a double, and a
  // double partition deoptimizes the callers that were compiled for small-integer partitions
  return (parseInt(id.slice(0, 13), 16) % numPartitions) | 0;
}

/** The shuffle partition of any string key: FNV-1a (32-bit) of its UTF-16 code units modulo `numPartitions`. */
export function partitionOfKey(key: string, numPartitions: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % numPartitions;
}
