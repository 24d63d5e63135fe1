import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalPath, isUnder, normalizeUrl } from './canonical-path.js';

describe('normalizeUrl()', () => {
  it('collapses //, /./ and trailing slashes, spells gcs:// as gs://, keeps .. literal', () => {
    expect(normalizeUrl('gs://b//marin/./x/')).toBe('gs://b/marin/x');
    expect(normalizeUrl('GCS://b/marin//')).toBe('gs://b/marin');
    expect(normalizeUrl('gs://b/a/../x')).toBe('gs://b/a/../x');
    expect(normalizeUrl('memory://p/./q')).toBe('memory://p/q');
  });
});

describe('canonicalPath()', () => {
  it('resolves symlinks, // and /./ for local paths, also below a missing directory', async () => {
    const tmp = await realpath(await mkdtemp(join(tmpdir(), 'gc-canon-')));
    try {
      await mkdir(join(tmp, 'real', 'out'), { recursive: true });
      await symlink(join(tmp, 'real'), join(tmp, 'link'));
      expect(await canonicalPath(join(tmp, 'link'))).toBe(join(tmp, 'real'));
      expect(await canonicalPath(`${tmp}/link//out/./`)).toBe(join(tmp, 'real', 'out'));
      expect(await canonicalPath(`file://${tmp}/link/missing/x-1`)).toBe(join(tmp, 'real', 'missing', 'x-1'));
      expect(await canonicalPath(`${tmp}/real/out/../out`)).toBe(join(tmp, 'real', 'out'));
      expect(await canonicalPath('gs://b//m/./x/')).toBe('gs://b/m/x');
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });

  it('isUnder() compares whole segments', () => {
    expect(isUnder('/p/a', '/p')).toBe(true);
    expect(isUnder('/p', '/p')).toBe(true);
    expect(isUnder('/pa/a', '/p')).toBe(false);
  });
});
