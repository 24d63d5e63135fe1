import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cutLine, isNoiseLine, meaningfulTail } from './levanter-output.js';

/** Real output of `python -m levanter.main.train_lm` (the quickstart's training, and one pointed at a missing cache). */
function fixture(name: string): string[] {
  return readFileSync(join(import.meta.dirname, '../../test/fixtures/levanter-output', name), 'utf8').split('\n');
}

describe('meaningfulTail()', () => {
  it('ends a failed run with its exception and the innermost frames, without the progress bar printed after it', () => {
    const lines = fixture('train-missing-cache.log');
    const tail = meaningfulTail(lines);
    expect(tail.length).toBeLessThanOrEqual(20);
    expect(tail.at(-1)).toBe('ValueError: No source and no cache found for component quickstart split train');
    expect(lines.filter((l) => l.trim() !== '').at(-1)).toMatch(/tqdm_loggable/);
    expect(tail).toContain('  … 14 frames');
    expect(tail).toContain('FileNotFoundError: Cache ledger not found at /tmp/marin/no-such-cache/train/shard_ledger.json');
    expect(tail.filter((l) => l.startsWith('  File ')).every((l) => l.startsWith('  File "…/site-packages/') || !l.includes('site-packages'))).toBe(true);
    expect(tail.some((l) => /^\s*\^+\s*$/.test(l))).toBe(false);
  });

  it('drops metric records, progress lines and JAX chatter from a real training log and cuts nothing it keeps short', () => {
    const lines = fixture('train-ok.log');
    expect(lines.some((l) => l.length > 4000)).toBe(true);
    const kept = lines.filter((l) => !isNoiseLine(l));
    expect(kept.some((l) => l.includes('levanter.json_logger'))).toBe(false);
    expect(kept.some((l) => l.includes('tqdm_loggable') || l.includes('jax.experimental'))).toBe(false);
    expect(kept.some((l) => l.includes('levanter.checkpoint Saving checkpoint at step 19.'))).toBe(true);
    expect(kept.length).toBeLessThan(lines.length / 2);
    expect(meaningfulTail(lines).every((l) => l.length <= 320)).toBe(true);
  });

  it('treats absl and XLA C++ log lines as noise and keeps Levanter warnings', () => {
    expect(isNoiseLine('WARNING: All log messages before absl::InitializeLog() is called are written to STDERR')).toBe(true);
    expect(isNoiseLine('E0000 00:00:1732612345.123456   12345 cuda_dnn.cc:8310] Unable to register cuDNN factory')).toBe(true);
    expect(isNoiseLine('I20261126 02:41:04 140541102638784 jax.experimental.array_serialization.serialization Waiting for thread')).toBe(true);
    expect(isNoiseLine('W20261126 02:39:46 140544494160768 levanter.data.loader Data loader is slow')).toBe(false);
    expect(isNoiseLine('E20261126 02:39:46 140544494160768 jax._src.xla_bridge Something failed')).toBe(false);
  });

  it('keeps the last lines and cuts long ones with an elision marker', () => {
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i}`);
    expect(meaningfulTail(lines, { maxLines: 3 })).toEqual(['line 47', 'line 48', 'line 49']);
    expect(cutLine('x'.repeat(310), 300)).toBe(`${'x'.repeat(300)}… (+10 chars)`);
    expect(cutLine('short', 300)).toBe('short');
  });
});
