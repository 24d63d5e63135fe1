import { filesystemFor, mapLimit, parsePyJson } from '@marin/rigging';
import { readRecord, RECORD_FILE } from '../artifact/record.js';
import { fileUnder, INFO_FILE } from '../status/status-store.js';
import { canonicalPath } from './canonical-path.js';

/** An output found by the walk, as far as its `.artifact.json` matters. */
interface OutputEntries {
  path: string;
  entries: readonly { url: string }[];
}

const IO = 16;

/** True when an output's listing holds an `.artifact.json` record. */
export function hasRecord(o: OutputEntries): boolean {
  return o.entries.some((e) => e.url.replace(/\/+$/, '').endsWith(`/${RECORD_FILE}`));
}

function hasInfo(o: OutputEntries): boolean {
  return o.entries.some((e) => e.url.replace(/\/+$/, '').endsWith(`/${INFO_FILE}`));
}

/** The `dependencies` of an output's `.executor_info` (a step runner's stub lists its deps' output paths). */
async function infoDependencies(path: string): Promise<string[]> {
  try {
    const url = fileUnder(path, INFO_FILE);
    const info = parsePyJson(await filesystemFor(url).readText(url)) as { dependencies?: unknown };
    return Array.isArray(info.dependencies) ? info.dependencies.filter((d): d is string => typeof d === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * What an artifact output was built from or aliases: its record's `dep_paths` (Marin's step records) and `source`
 * (an adopted artifact's data), the `dependencies` of its `.executor_info` (the step runner writes its deps'
 * output paths there), and for each recorded `name@version` dep without a path, `{prefix}/{name}/{version}`.
 */
async function lineageOf(o: OutputEntries, prefix: string): Promise<string[]> {
  const record = await readRecord(o.path);
  const named = [...(record?.dep_paths ?? []), ...(record?.source === null || record?.source === undefined ? [] : [record.source])];
  if (hasInfo(o)) named.push(...(await infoDependencies(o.path)));
  if (record !== null && record.dep_paths.length === 0) {
    for (const ref of record.deps) {
      const at = ref.lastIndexOf('@');
      if (at > 0) named.push(`${prefix}/${ref.slice(0, at)}/${ref.slice(at + 1)}`);
    }
  }
  return named;
}

/**
 * Extends `referenced` with the lineage of referenced artifacts (see {@link lineageOf}), transitively. Python's lazy
 * runner writes no experiment file, so an artifact graph a live experiment reaches through its top artifact keeps
 * what that artifact was built from. An unreadable record adds nothing (its artifact itself stays referenced).
 * Returns the paths added.
 */
export async function addRecordedReferences(outputs: readonly OutputEntries[], referenced: Set<string>, prefix: string, warn?: (message: string) => void): Promise<string[]> {
  const withRecord = new Map(outputs.filter(hasRecord).map((o) => [o.path, o]));
  const added: string[] = [];
  const done = new Set<string>();
  let frontier = [...referenced].filter((p) => withRecord.has(p));
  while (frontier.length > 0) {
    frontier.forEach((p) => done.add(p));
    const named = await mapLimit(frontier, IO, async (path) => {
      try {
        return await Promise.all((await lineageOf(withRecord.get(path) as OutputEntries, prefix)).map(canonicalPath));
      } catch (e) {
        warn?.(`cannot read the artifact record of ${path}: ${(e as Error).message}`);
        return [];
      }
    });
    frontier = [];
    for (const p of named.flat()) {
      if (!referenced.has(p)) {
        referenced.add(p);
        added.push(p);
      }
      if (withRecord.has(p) && !done.has(p)) frontier.push(p);
    }
    frontier = [...new Set(frontier)];
  }
  return added;
}

/** `name@version` of the artifact an output's record names, else `null` (no record, or one without a name). */
export async function artifactIdOf(o: OutputEntries): Promise<string | null> {
  if (!hasRecord(o)) return null;
  try {
    const record = await readRecord(o.path);
    return record === null || record.name === '' ? null : `${record.name}@${record.version}`;
  } catch {
    return null;
  }
}
