import { gzipSync } from 'node:zlib';
import { Header } from 'tar';

/** One entry of a hand-made tar: any type, path and mode, as a hostile uploader could write it. */
export interface CraftedEntry {
  path: string;
  /** tar's type name. @default 'File' */
  type?: 'File' | 'SymbolicLink' | 'Link' | 'FIFO' | 'CharacterDevice' | 'BlockDevice' | 'Directory';
  /** Content of a file entry. @default empty */
  body?: Buffer | string;
  /** A file of this many zero bytes (compresses about 1000:1), instead of `body`. */
  zeros?: number;
  /** @default 0o644 */
  mode?: number;
  linkpath?: string;
}

/**
 * A gzip'd tar written entry by entry with tar's own `Header`, without the checks a packer applies,
 * so tests can send what an attacker would: links, devices, `..`, clashes, setuid modes, bombs.
 */
export function craftedTarGz(entries: readonly CraftedEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const type = e.type ?? 'File';
    const body = type !== 'File' ? Buffer.alloc(0) : e.zeros !== undefined ? Buffer.alloc(e.zeros) : Buffer.from(e.body ?? '');
    const header = new Header({ path: e.path, type, size: body.length, mode: e.mode ?? 0o644, mtime: new Date(0), linkpath: e.linkpath ?? '' });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    parts.push(block, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(parts), { level: 9 });
}

/**
 * A decompression bomb: a gzip'd tar with one file `path` of `inflatedBytes` zero bytes, built as
 * concatenated gzip members (each 1 MiB of zeros, about 1 KiB compressed), so a gigabyte inflated
 * costs a megabyte to make and send. `inflatedBytes` is rounded up to whole MiB.
 */
export function zeroBombTarGz(path: string, inflatedBytes: number): Buffer {
  const mib = 1024 * 1024;
  const count = Math.ceil(inflatedBytes / mib);
  const header = new Header({ path, type: 'File', size: count * mib, mode: 0o644, mtime: new Date(0) });
  const block = Buffer.alloc(512);
  header.encode(block, 0);
  const zeros = gzipSync(Buffer.alloc(mib), { level: 9 });
  return Buffer.concat([gzipSync(block), ...Array.from({ length: count }, () => zeros), gzipSync(Buffer.alloc(1024))]);
}
