import { readText } from '@marin/rigging';
import { resetMemoryFilesystem } from '@marin/rigging/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { metricsPartPath, writeMetricsPart } from './metrics-part.js';

describe('metricsPartPath()', () => {
  it('names part i of n with five-digit numbers under .metrics', () => {
    expect(metricsPartPath('gs://b/raw/ds-abc123/', 3, 12)).toBe('gs://b/raw/ds-abc123/.metrics/success-part-00003-of-00012.jsonl');
  });
});

describe('writeMetricsPart()', () => {
  afterEach(() => resetMemoryFilesystem());

  it('writes one JSON line as Python json.dumps would', async () => {
    await writeMetricsPart('memory://m/part.jsonl', { path: 'data/a.jsonl', bytes: 42 });
    expect(await readText('memory://m/part.jsonl')).toBe('{"path": "data/a.jsonl", "bytes": 42}\n');
  });
});
