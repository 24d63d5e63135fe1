import { writeText } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { readRange } from './read-range.js';

describe('readRange()', () => {
  it('reads [start, end) and reports a file that ends early as PIPELINE_INPUT_INVALID', async () => {
    const url = `memory://read-range-${Date.now()}/f`;
    await writeText(url, '0123456789');
    expect(new TextDecoder().decode(await readRange(url, 2, 5))).toBe('234');
    await expect(readRange(url, 4, 20)).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { path: url } });
  });
});
