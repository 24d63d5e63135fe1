/**
 * Blosc's byte shuffle: byte `j` of element `i` moves to `j * count + i`, so the high (mostly zero)
 * bytes of small integers end up next to each other and compress well. Trailing bytes that do not
 * fill a whole element are copied unchanged, as c-blosc does.
 */
export function shuffleBytes(src: Uint8Array, typesize: number, dst: Uint8Array = new Uint8Array(src.length)): Uint8Array {
  return moveBytes(src, typesize, dst, true);
}

/** Undoes {@link shuffleBytes}. */
export function unshuffleBytes(src: Uint8Array, typesize: number, dst: Uint8Array = new Uint8Array(src.length)): Uint8Array {
  return moveBytes(src, typesize, dst, false);
}

/**
 * Shuffles (`forward`) or unshuffles `src` into `dst`. The direction is chosen outside the inner
 * loops, so each direction keeps its own tight loop.
 */
function moveBytes(src: Uint8Array, typesize: number, dst: Uint8Array, forward: boolean): Uint8Array {
  if (typesize <= 1) {
    dst.set(src);
    return dst;
  }
  const count = Math.floor(src.length / typesize);
  // The side holding whole elements: read from when shuffling, written to when unshuffling.
  const elements = forward ? src : dst;
  if ((typesize === 4 || typesize === 8) && elements.byteOffset % 4 === 0) {
    // Hot path for token data: each 32-bit word of an element maps to four byte planes.
    const words = new Uint32Array(elements.buffer, elements.byteOffset, (count * typesize) / 4);
    const step = typesize / 4;
    for (let half = 0; half < step; half++) {
      const b0 = 4 * half * count;
      const b1 = b0 + count;
      const b2 = b1 + count;
      const b3 = b2 + count;
      if (forward) {
        for (let i = 0, w = half; i < count; i++, w += step) {
          const v = words[w]!;
          dst[b0 + i] = v;
          dst[b1 + i] = v >>> 8;
          dst[b2 + i] = v >>> 16;
          dst[b3 + i] = v >>> 24;
        }
      } else {
        for (let i = 0, w = half; i < count; i++, w += step) {
          words[w] = src[b0 + i]! | (src[b1 + i]! << 8) | (src[b2 + i]! << 16) | (src[b3 + i]! << 24);
        }
      }
    }
  } else {
    for (let j = 0; j < typesize; j++) {
      const base = j * count;
      if (forward) {
        for (let i = 0, e = j; i < count; i++, e += typesize) dst[base + i] = src[e]!;
      } else {
        for (let i = 0, e = j; i < count; i++, e += typesize) dst[e] = src[base + i]!;
      }
    }
  }
  const tail = count * typesize;
  if (tail < src.length) dst.set(src.subarray(tail), tail);
  return dst;
}
