import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemeOf } from '@marin/rigging';
import { ExecutorError } from '../errors.js';

/** Kernel filesystems that are views of kernel state, never storage (`statfs` `f_type` magic numbers). */
const PSEUDO_FILESYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'procfs'],
  [0x62656572, 'sysfs'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x1cd1, 'devpts'],
  [0xcafe4a11, 'bpf'],
  [0x62656570, 'configfs'],
  [0x6165676c, 'pstore'],
  [0xde5e81e4, 'efivarfs'],
  [0x65735543, 'fusectl'],
  [0x42494e4d, 'binfmt_misc'],
  [0x19800202, 'mqueue'],
]);

/** The pseudo filesystem holding local `path` (or its nearest existing ancestor), or `null`. */
export async function pseudoFilesystemOf(path: string): Promise<string | null> {
  let p = path;
  for (;;) {
    try {
      const st = await statfs(p);
      return PSEUDO_FILESYSTEMS.get(Number(st.type)) ?? null;
    } catch {
      const up = dirname(p);
      if (up === p) return null;
      p = up;
    }
  }
}

/**
 * Refuses a local root (the prefix, the experiment JSON folder) on a pseudo filesystem such as
 * `/proc` or `/sys`: nothing can be stored there, and Node's recursive `mkdir` spins forever on
 * procfs. URLs other than `file://` are not checked.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT with `details.reason = 'pseudo-filesystem'`.
 */
export async function assertStorablePath(what: string, path: string): Promise<void> {
  const scheme = schemeOf(path);
  if (scheme !== null && scheme !== 'file') return;
  const local = scheme === 'file' ? fileURLToPath(path) : path;
  const fsType = await pseudoFilesystemOf(local);
  if (fsType === null) return;
  throw new ExecutorError(
    'EXECUTOR_INVALID_ARGUMENT',
    `${what} ${path} is on ${fsType}, a kernel pseudo filesystem that cannot store outputs; use a directory on a disk (e.g. /tmp/marin)`,
    { details: { reason: 'pseudo-filesystem', path, fsType, usage: true } },
  );
}
