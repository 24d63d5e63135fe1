import { describe, expect, it } from 'vitest';
import { NormalizeConfigSchema } from './normalize.js';

describe('NormalizeConfigSchema', () => {
  it('spills past 512 MiB by default, so a full map task of typical text (~350 MB) sorts in memory', () => {
    const config = NormalizeConfigSchema.parse({ input_path: 'in', output_path: 'out' });
    expect(config.spill_bytes).toBe(512 * 1024 * 1024);
    expect(config.map_task_bytes).toBe(128 * 1024 * 1024);
  });
});
