import { randomUUID } from 'node:crypto';

/**
 * A unique sibling of `path` for staging a write: `` `${path}.tmp.<32 hex>` ``.
 * A crash leaves at most such siblings, never a partial final file.
 */
export function uniqueTempPath(path: string): string {
  return `${path.replace(/(?<=[^/])\/+$/, '')}.tmp.${randomUUID().replace(/-/g, '')}`;
}

const TEMP_NAME = /\.tmp\.[0-9a-f]{32}$/;

/**
 * Whether the last segment of `path` is a staging name made by {@link uniqueTempPath}. Listings
 * (`ls`, `glob`) never return such names unless asked, so readers never see half-written files.
 */
export function isTempPath(path: string): boolean {
  return TEMP_NAME.test(path.replace(/(?<=[^/])\/+$/, ''));
}

/** Whether any segment of the relative path `rel` is a staging name. */
export function hasTempSegment(rel: string): boolean {
  return rel.split('/').some((seg) => TEMP_NAME.test(seg));
}

/** The path a staging name stands for (`a/b.bin.tmp.<32 hex>` → `a/b.bin`), or `null`. */
export function tempTarget(path: string): string | null {
  const trimmed = path.replace(/(?<=[^/])\/+$/, '');
  return TEMP_NAME.test(trimmed) ? trimmed.replace(TEMP_NAME, '') : null;
}
