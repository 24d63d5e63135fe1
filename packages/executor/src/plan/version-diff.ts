import { isPyJsonObject, pyJsonDumps } from '@marin/rigging';

/** One changed leaf between two versions. */
export interface VersionChange {
  /** `~` changed, `+` added, `-` removed. */
  kind: '~' | '+' | '-';
  /** Version path such as `config.tokenizer` or `dependencies[0].config.n`. */
  path: string;
  /** Compact JSON of the earlier value (absent for `+`). */
  before?: string;
  /** Compact JSON of the current value (absent for `-`). */
  after?: string;
}

function render(x: unknown): string {
  return pyJsonDumps(x, { strict: false, onWarning: () => {} });
}

/**
 * Flattens a version object into leaves keyed by version path (`config.a.b`, `dependencies[1]`);
 * empty containers are leaves. Keys are used verbatim (a config key `a.b` stays `a.b`).
 */
export function flattenVersion(value: unknown, path = '', out = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(value) && value.length > 0) {
    value.forEach((v, i) => flattenVersion(v, `${path}[${i}]`, out));
  } else if (isPyJsonObject(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) flattenVersion(v, path === '' ? k : `${path}.${k}`, out);
  } else {
    out.set(path, render(value));
  }
  return out;
}

/** Field-level differences from `before` to `after`: changed and added leaves in `after`'s order, then removed ones. */
export function diffVersions(before: unknown, after: unknown): VersionChange[] {
  const a = flattenVersion(before);
  const b = flattenVersion(after);
  const changes: VersionChange[] = [];
  for (const [path, value] of b) {
    const old = a.get(path);
    if (old === undefined) changes.push({ kind: '+', path, after: value });
    else if (old !== value) changes.push({ kind: '~', path, before: old, after: value });
  }
  for (const [path, value] of a) if (!b.has(path)) changes.push({ kind: '-', path, before: value });
  return changes;
}

/** Renders one change as a dry-run line: `~ config.n: 3 → 4`, `+ config.seed: 1`, `- config.glob: "*"`. */
export function formatChange(c: VersionChange): string {
  switch (c.kind) {
    case '~':
      return `~ ${c.path}: ${c.before} → ${c.after}`;
    case '+':
      return `+ ${c.path}: ${c.after}`;
    case '-':
      return `- ${c.path}: ${c.before}`;
  }
}
