import { createRequire } from 'node:module';
import { createXXHash128 } from 'hash-wasm';

/**
 * xxh3-128 digests as 32 lowercase hex digits (big-endian, zero-padded): normalize's document ids.
 *
 * xxhash-addon is an optional peer dependency: an N-API wrapper of xxHash 0.8.3 that ships prebuilt
 * binaries (linux, darwin, win32; x64 and arm64) and picks the widest SIMD the CPU has at run time
 * (AVX2 on most x86), several times hash-wasm's WebAssembly build. Without it, or when its binary does not
 * load, hash-wasm hashes instead: the digests are the same, only slower.
 */
const require = createRequire(import.meta.url);

/** The part of xxhash-addon used here: XXH3-128 with seed 0 of a byte view, as its 16-byte canonical (big-endian) digest. */
export interface NativeXxh3Binding {
  XXHash128: { hash(data: Uint8Array): Buffer };
}

/** Which implementation a {@link Xxh3Hasher} runs. */
export type Xxh3Backend = 'xxhash-addon' | 'hash-wasm';

export interface Xxh3Hasher {
  readonly backend: Xxh3Backend;
  /** The xxh3-128 digest of `bytes` (any view: offset and length are honoured) as 32 lowercase hex digits. */
  hex128(bytes: Uint8Array): string;
}

/** The xxhash-addon binding, or null when it is not installed or its binary does not load. */
export function loadXxhashAddon(): NativeXxh3Binding | null {
  try {
    return require('xxhash-addon') as NativeXxh3Binding;
  } catch {
    return null;
  }
}

// Known digests (Python's xxhash) that a native binding must reproduce before it is trusted with ids: the
// empty input, and 1,000 bytes (XXH3's long-input path, past 240 bytes, where the SIMD kernels run).
const SELF_CHECK: readonly (readonly [Uint8Array, string])[] = [
  [new Uint8Array(0), '99aa06d3014798d86001c324468d497f'],
  [new Uint8Array(1000).fill(0x78), '50a1af5a5f2dcf01c0a4877b962cba82'],
];

/** The native hasher of the binding `loadNative` returns, or null when it returns none, throws, or gives other digests. */
function nativeHasher(loadNative: () => NativeXxh3Binding | null): Xxh3Hasher | null {
  try {
    const binding = loadNative();
    if (binding === null) return null;
    const { XXHash128 } = binding;
    const hex128 = (bytes: Uint8Array): string => XXHash128.hash(bytes).toString('hex');
    return SELF_CHECK.every(([bytes, hex]) => hex128(bytes) === hex) ? { backend: 'xxhash-addon', hex128 } : null;
  } catch {
    return null;
  }
}

/**
 * An xxh3-128 hasher: xxhash-addon's when `loadNative` returns a binding that reproduces known digests,
 * hash-wasm's otherwise (no binding, a loader that throws, other digests). `loadNative` defaults to
 * {@link loadXxhashAddon}; pass `() => null` to force the WebAssembly path.
 */
export async function createXxh3Hasher(loadNative: () => NativeXxh3Binding | null = loadXxhashAddon): Promise<Xxh3Hasher> {
  const native = nativeHasher(loadNative);
  if (native !== null) return native;
  const wasm = await createXXHash128();
  return { backend: 'hash-wasm', hex128: (bytes) => wasm.init().update(bytes).digest('hex') };
}
