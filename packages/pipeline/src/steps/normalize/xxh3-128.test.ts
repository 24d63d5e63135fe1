import { describe, expect, it } from 'vitest';
import { createXxh3Hasher, loadXxhashAddon, type NativeXxh3Binding, type Xxh3Hasher } from './xxh3-128.js';
import { PYTHON_XXH3_128_IDS } from '../../../test/helpers/xxh3-oracle.js';

/** xxhash-addon is a devDependency of the package, so the repo's tests always have the native path. */
async function nativeHasher(): Promise<Xxh3Hasher> {
  const hasher = await createXxh3Hasher();
  if (hasher.backend !== 'xxhash-addon') throw new Error('xxhash-addon did not load: run `npm install` at the repo root (it is a devDependency of @marin/pipeline)');
  return hasher;
}

const wasm = await createXxh3Hasher(() => null);
const native = await nativeHasher();
const encoder = new TextEncoder();

/** Deterministic bytes that are not a repeated pattern (a Knuth multiplicative hash of the position). */
function bytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.imul(i + 1, 2654435761) >>> 24;
  return out;
}

describe('createXxh3Hasher()', () => {
  it('uses xxhash-addon when it loads, and hash-wasm when the loader finds nothing', () => {
    expect(native.backend).toBe('xxhash-addon');
    expect(wasm.backend).toBe('hash-wasm');
  });

  it.each(PYTHON_XXH3_128_IDS)('both backends hash %j as Python does', (text, hex) => {
    const utf8 = encoder.encode(text);
    expect(native.hex128(utf8)).toBe(hex);
    expect(wasm.hex128(utf8)).toBe(hex);
  });

  it("gives hash-wasm's digests on every length around XXH3's 16, 128 and 240 byte boundaries, up to 1 MB", () => {
    const lengths = [0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 127, 128, 129, 239, 240, 241, 255, 256, 1023, 1024, 1025, 65_536, 1 << 20];
    const source = bytes((1 << 20) + 64);
    for (const n of lengths) {
      const view = source.subarray(0, n);
      expect(native.hex128(view), `${n} bytes`).toBe(wasm.hex128(view));
    }
    // every length up to 300 bytes, so each of XXH3's short-input branches is covered
    for (let n = 0; n <= 300; n++) expect(native.hex128(source.subarray(5, 5 + n)), `${n} bytes`).toBe(wasm.hex128(source.subarray(5, 5 + n)));
  });

  it('hashes only the bytes of a view at an odd offset into a larger buffer', () => {
    const source = bytes(4096);
    for (const offset of [1, 3, 7, 13, 33]) {
      for (const n of [0, 1, 17, 129, 241, 1000]) {
        const view = source.subarray(offset, offset + n);
        const copy = view.slice();
        expect(native.hex128(view), `${n} bytes at ${offset}`).toBe(wasm.hex128(copy));
        expect(wasm.hex128(view), `${n} bytes at ${offset}`).toBe(wasm.hex128(copy));
      }
    }
    const buffer = Buffer.from(source.buffer, 11, 300);
    expect(native.hex128(buffer)).toBe(wasm.hex128(source.slice(11, 311)));
  });

  it('returns 32 zero-padded hex digits when the digest starts with zero bytes', () => {
    // found by search: hash-wasm's digest of these bytes starts with "00"
    let n = 0;
    let hex = '';
    do hex = wasm.hex128(encoder.encode(`doc-${++n}`));
    while (!hex.startsWith('00'));
    expect(hex).toHaveLength(32);
    expect(native.hex128(encoder.encode(`doc-${n}`))).toBe(hex);
  });

  it('falls back to hash-wasm when loading the binding throws', async () => {
    const hasher = await createXxh3Hasher(() => {
      throw new Error('binary does not load');
    });
    expect(hasher.backend).toBe('hash-wasm');
    expect(hasher.hex128(encoder.encode('a'))).toBe('a96faf705af16834e6c632b61e964e1f');
  });

  it('falls back to hash-wasm when a binding does not reproduce the known digests', async () => {
    // xxhash-addon's streaming hasher with seed 1: a real xxh3-128, but not the ids' (seed 0)
    const real = loadXxhashAddon() as (NativeXxh3Binding & { XXHash128: new (seed: Buffer) => { update(data: Uint8Array): void; digest(): Buffer } }) | null;
    expect(real).not.toBeNull();
    const wrong: NativeXxh3Binding = {
      XXHash128: {
        hash: (data) => {
          const seeded = new real!.XXHash128(Buffer.from([0, 0, 0, 1]));
          seeded.update(data);
          return seeded.digest();
        },
      },
    };
    const hasher = await createXxh3Hasher(() => wrong);
    expect(hasher.backend).toBe('hash-wasm');
    expect(hasher.hex128(new Uint8Array(0))).toBe('99aa06d3014798d86001c324468d497f');
  });
});
