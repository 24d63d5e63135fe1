/**
 * Module-level verbs: each takes a URL (or bare path) and dispatches through `filesystemFor`.
 */
import type { Readable, Writable } from 'node:stream';
import type { ByteRange, FileInfo, RmOptions } from './filesystem.js';
import { expandBraces, hasWildcard } from './glob-pattern.js';
import { filesystemFor } from './registry.js';

/** Whether `url` exists (file or directory). */
export function exists(url: string): Promise<boolean> {
  return filesystemFor(url).exists(url);
}

/** @throws {RiggingError} RIGGING_NOT_FOUND if `url` is missing. */
export function stat(url: string): Promise<FileInfo> {
  return filesystemFor(url).stat(url);
}

/** File size in bytes. @throws {RiggingError} RIGGING_NOT_FOUND if `url` is missing. */
export function size(url: string): Promise<number> {
  return filesystemFor(url).size(url);
}

/** Direct children sorted by URL. @throws {RiggingError} RIGGING_NOT_FOUND if `url` is missing. */
export function ls(url: string): Promise<FileInfo[]> {
  return filesystemFor(url).ls(url);
}

/** Unique sorted URLs matching a brace-expanded glob; missing literals are dropped. */
export function glob(pattern: string): Promise<string[]> {
  return filesystemFor(pattern).glob(pattern);
}

/**
 * Brace-expands each pattern, globs members containing `*`, `?` or `[`, and keeps literal members
 * even when they do not exist. Returns unique sorted URLs.
 */
export async function expandGlob(patterns: string | readonly string[]): Promise<string[]> {
  const out = new Set<string>();
  for (const pattern of typeof patterns === 'string' ? [patterns] : patterns) {
    for (const member of expandBraces(pattern)) {
      if (hasWildcard(member)) for (const url of await glob(member)) out.add(url);
      else out.add(member);
    }
  }
  return [...out].sort();
}

/** @throws {RiggingError} RIGGING_NOT_FOUND if `url` is missing. */
export function readBytes(url: string): Promise<Buffer> {
  return filesystemFor(url).readBytes(url);
}

/** UTF-8 text. @throws {RiggingError} RIGGING_NOT_FOUND if `url` is missing. */
export function readText(url: string): Promise<string> {
  return filesystemFor(url).readText(url);
}

/** Replaces `url` atomically with `data`. */
export function writeBytes(url: string, data: Uint8Array): Promise<void> {
  return filesystemFor(url).writeBytes(url, data);
}

/** Replaces `url` atomically with UTF-8 `text`. */
export function writeText(url: string, text: string): Promise<void> {
  return filesystemFor(url).writeText(url, text);
}

/** A read stream (range `end` inclusive). */
export function createReadStream(url: string, range?: ByteRange): Promise<Readable> {
  return filesystemFor(url).createReadStream(url, range);
}

/** A write stream whose content appears only when it finishes. */
export function createWriteStream(url: string): Promise<Writable> {
  return filesystemFor(url).createWriteStream(url);
}

/** Creates a directory and its parents (no-op on object stores). */
export function mkdirs(url: string): Promise<void> {
  return filesystemFor(url).mkdirs(url);
}

/** Removes a file, or a directory with `recursive`. */
export function rm(url: string, opts?: RmOptions): Promise<void> {
  return filesystemFor(url).rm(url, opts);
}

/** Moves a file or directory (across backends too), replacing the destination. */
export function rename(src: string, dst: string): Promise<void> {
  return filesystemFor(src).rename(src, dst);
}

/** Copies one file, server-side when both ends are on one backend. */
export function copy(src: string, dst: string): Promise<void> {
  return filesystemFor(src).copy(src, dst);
}
