import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Reads `<dir>/.executor_status`, or `null` when it does not exist. */
export async function statusOf(dir: string): Promise<string | null> {
  try {
    return await readFile(join(dir, '.executor_status'), 'utf8');
  } catch {
    return null;
  }
}

/** Parses `<dir>/.executor_info`. */
export async function infoOf(dir: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(dir, '.executor_info'), 'utf8')) as Record<string, unknown>;
}

/** Every file and directory under `root`, relative, sorted (empty when `root` does not exist). */
export async function listTree(root: string): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  try {
    const entries = await readdir(root, { recursive: true });
    return entries.map(String).sort();
  } catch {
    return [];
  }
}
