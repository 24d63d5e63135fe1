import { describe, expect, it } from 'vitest';
import type { DatasetPart } from '../../formats/dataset-part.js';
import { textArenaChunkBytes } from './normalize-map.js';

const MiB = 1024 * 1024;
const part = (bytes: number): DatasetPart => ({ url: 'a.parquet', format: 'parquet', rowGroup: 0, rows: 10, bytes });

describe('textArenaChunkBytes()', () => {
  it('guesses four times the parts compressed bytes, between 16 and 512 MiB', () => {
    expect(textArenaChunkBytes([part(50 * MiB), part(60 * MiB)])).toBe(440 * MiB);
    expect(textArenaChunkBytes([part(1000)])).toBe(16 * MiB);
    expect(textArenaChunkBytes([])).toBe(16 * MiB);
    expect(textArenaChunkBytes([part(200 * MiB), part(200 * MiB)])).toBe(512 * MiB);
  });
});
