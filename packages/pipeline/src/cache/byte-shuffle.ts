/**
 * Blosc's byte shuffle: byte `j` of element `i` moves to `j * count + i`, so the high (mostly zero)
 * bytes of small integers end up next to each other and compress well. Trailing bytes that do not
 * fill a whole element are copied unchanged, as c-blosc does.
 */
export function shuffleBytes(src: Uint8Array, typesize: number, dst: Uint8Array = new Uint8Array(src.length)): Uint8Array {
  if (typesize <= 1) {
    dst.set(src);
    return dst;
  }
  const count = Math.floor(src.length / typesize);
  if (typesize === 4 || typesize === 8) {
    // Hot path for token data: walk each output plane sequentially.
    for (let j = 0; j < typesize; j++) {
      const base = j * count;
      for (let i = 0, s = j; i < count; i++, s += typesize) dst[base + i] = src[s]!;
    }
  } else {
    for (let j = 0; j < typesize; j++) {
      for (let i = 0; i < count; i++) dst[j * count + i] = src[i * typesize + j]!;
    }
  }
  const tail = count * typesize;
  if (tail < src.length) dst.set(src.subarray(tail), tail);
  return dst;
}

/** Undoes {@link shuffleBytes}. */
export function unshuffleBytes(src: Uint8Array, typesize: number, dst: Uint8Array = new Uint8Array(src.length)): Uint8Array {
  if (typesize <= 1) {
    dst.set(src);
    return dst;
  }
  const count = Math.floor(src.length / typesize);
  for (let j = 0; j < typesize; j++) {
    const base = j * count;
    for (let i = 0, d = j; i < count; i++, d += typesize) dst[d] = src[base + i]!;
  }
  const tail = count * typesize;
  if (tail < src.length) dst.set(src.subarray(tail), tail);
  return dst;
}
