import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeText } from '../fs/verbs.js';
import { codeForError, wrapFsError } from './fs-error.js';

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed`), { code, syscall: 'open', errno: -1 });
}

describe('filesystem errno mapping', () => {
  it.each([
    ['ENOENT', 'RIGGING_NOT_FOUND'],
    ['EACCES', 'RIGGING_PERMISSION_DENIED'],
    ['EPERM', 'RIGGING_PERMISSION_DENIED'],
    ['EROFS', 'RIGGING_PERMISSION_DENIED'],
    ['ENOTDIR', 'RIGGING_INVALID_ARGUMENT'],
    ['EISDIR', 'RIGGING_INVALID_ARGUMENT'],
    ['ENAMETOOLONG', 'RIGGING_INVALID_ARGUMENT'],
    ['EXDEV', 'RIGGING_UNSUPPORTED'],
    ['ENOSPC', 'RIGGING_UNAVAILABLE'],
    ['EMFILE', 'RIGGING_UNAVAILABLE'],
    ['ESOMETHINGNEW', 'RIGGING_UNAVAILABLE'],
  ])('maps %s to %s', (code, expected) => {
    expect(codeForError(errno(code))).toBe(expected);
    expect(wrapFsError(errno(code), '/p', 'write')).toMatchObject({ code: expected, details: { path: '/p', operation: 'write', errno: code } });
  });

  it('marks a full disk as not retryable and a busy file as retryable', () => {
    expect(wrapFsError(errno('ENOSPC'), '/p', 'write')).toMatchObject({ retryable: false });
    expect(wrapFsError(errno('EBUSY'), '/p', 'write')).toMatchObject({ retryable: true });
  });

  it('leaves errors that are not errno or HTTP failures alone', () => {
    const plain = new Error('boom');
    expect(wrapFsError(plain, '/p', 'write')).toBe(plain);
  });

  it('reports a write below a file as RIGGING_INVALID_ARGUMENT (ENOTDIR), not RIGGING_NOT_FOUND', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rigging-errno-'));
    try {
      await writeFile(join(dir, 'file'), 'x');
      await expect(writeText(join(dir, 'file', 'a', 'b.txt'), 'y')).rejects.toMatchObject({
        code: 'RIGGING_INVALID_ARGUMENT',
        details: { errno: 'ENOTDIR' },
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
