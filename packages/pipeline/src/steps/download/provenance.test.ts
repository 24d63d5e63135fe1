import { readText } from '@marin/rigging';
import { resetMemoryFilesystem } from '@marin/rigging/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { pyIsoUtc, writeProvenance } from './provenance.js';

describe('pyIsoUtc()', () => {
  it("matches Python's datetime.now(timezone.utc).isoformat()", () => {
    expect(pyIsoUtc(new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 678)))).toBe('2025-01-02T03:04:05.678000+00:00');
    expect(pyIsoUtc(new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 7)))).toBe('2025-01-02T03:04:05.007000+00:00');
    expect(pyIsoUtc(new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 0)))).toBe('2025-01-02T03:04:05+00:00');
  });
});

describe('writeProvenance()', () => {
  afterEach(() => resetMemoryFilesystem());

  it('writes json.dump(indent=4, sort_keys=True) bytes', async () => {
    await writeProvenance('memory://out', { dataset: 'org/ds', version: 'abc1234', links: ['http://hub/a', 'http://hub/b'] }, new Date(Date.UTC(2025, 5, 1)));
    expect(await readText('memory://out/provenance.json')).toBe(
      [
        '{',
        '    "access_time": "2025-06-01T00:00:00+00:00",',
        '    "dataset": "org/ds",',
        '    "links": [',
        '        "http://hub/a",',
        '        "http://hub/b"',
        '    ],',
        '    "version": "abc1234"',
        '}',
      ].join('\n'),
    );
  });
});
