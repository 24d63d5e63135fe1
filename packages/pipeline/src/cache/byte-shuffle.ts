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
  if ((typesize === 4 || typesize === 8) && src.byteOffset % 4 === 0) {
    // Hot path for token data: one 32-bit read feeds four output planes.
    const words = new Uint32Array(src.buffer, src.byteOffset, (count * typesize) / 4);
    const step = typesize / 4;
    for (let half = 0; half < step; half++) {
      const b0 = 4 * half * count;
      const b1 = b0 + count;
      const b2 = b1 + count;
      const b3 = b2 + count;
      for (let i = 0, w = half; i < count; i++, w += step) {
        const v = words[w]!;
        dst[b0 + i] = v;
        dst[b1 + i] = v >>> 8;
        dst[b2 + i] = v >>> 16;
        dst[b3 + i] = v >>> 24;
      }
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
  if ((typesize === 4 || typesize === 8) && dst.byteOffset % 4 === 0) {
    // Hot path: four input planes build one 32-bit word.
    const words = new Uint32Array(dst.buffer, dst.byteOffset, (count * typesize) / 4);
    const step = typesize / 4;
    for (let half = 0; half < step; half++) {
      const b0 = 4 * half * count;
      const b1 = b0 + count;
      const b2 = b1 + count;
      const b3 = b2 + count;
      for (let i = 0, w = half; i < count; i++, w += step) {
        words[w] = src[b0 + i]! | (src[b1 + i]! << 8) | (src[b2 + i]! << 16) | (src[b3 + i]! << 24);
      }
    }
  } else {
    for (let j = 0; j < typesize; j++) {
      const base = j * count;
      for (let i = 0, d = j; i < count; i++, d += typesize) dst[d] = src[base + i]!;
    }
  }
  const tail = count * typesize;
  if (tail < src.length) dst.set(src.subarray(tail), tail);
  return dst;
}
