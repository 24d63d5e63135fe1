import { randomUUID } from 'node:crypto';

/**
 * A unique sibling of `path` for staging a write: `` `${path}.tmp.<32 hex>` ``.
 * A crash leaves at most such siblings, never a partial final file.
 */
export function uniqueTempPath(path: string): string {
  return `${path.replace(/(?<=[^/])\/+$/, '')}.tmp.${randomUUID().replace(/-/g, '')}`;
}
