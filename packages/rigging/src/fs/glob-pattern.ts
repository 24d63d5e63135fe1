/**
 * Brace expansion and glob matching shared by every backend (`Filesystem.glob`; see "Globbing" in `DESIGN.md`).
 * Patterns are matched against listings; nothing here touches storage.
 */

const RANGE_RE = /^(-?\d+)\.\.(-?\d+)$/;

function matchingBrace(p: string, open: number): number {
  let depth = 0;
  for (let i = open; i < p.length; i++) {
    if (p[i] === '{') depth++;
    else if (p[i] === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function splitTopLevel(inner: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(inner.slice(start));
  return parts;
}

function rangeMembers(from: string, to: string): string[] {
  const a = Number(from);
  const b = Number(to);
  const pad = /^-?0\d/.test(from) || /^-?0\d/.test(to) ? Math.max(from.length, to.length) : 0;
  const out: string[] = [];
  const step = a <= b ? 1 : -1;
  for (let n = a; step > 0 ? n <= b : n >= b; n += step) {
    const s = String(Math.abs(n)).padStart(pad - (n < 0 ? 1 : 0), '0');
    out.push(n < 0 ? `-${s}` : s);
  }
  return out;
}

/**
 * Expands `{a,b}` alternatives (nested allowed) and numeric ranges `{1..3}` / `{01..10}`.
 * Braces without a comma or range stay literal.
 * @example expandBraces('x/{a,b{1..2}}') // ['x/a', 'x/b1', 'x/b2']
 */
export function expandBraces(pattern: string): string[] {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== '{') continue;
    const j = matchingBrace(pattern, i);
    if (j < 0) break;
    const inner = pattern.slice(i + 1, j);
    const parts = splitTopLevel(inner);
    let alternatives: string[] | null = null;
    if (parts.length > 1) alternatives = parts;
    else {
      const range = RANGE_RE.exec(inner);
      if (range !== null) alternatives = rangeMembers(range[1] ?? '0', range[2] ?? '0');
    }
    if (alternatives === null) continue;
    const head = pattern.slice(0, i);
    const tail = pattern.slice(j + 1);
    return alternatives.flatMap((alt) => expandBraces(`${head}${alt}${tail}`));
  }
  return [pattern];
}

/** True when `s` contains `*`, `?` or `[`. */
export function hasWildcard(s: string): boolean {
  return /[*?[]/.test(s);
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function segmentToRegex(seg: string): string {
  let out = '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i] ?? '';
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const close = seg.indexOf(']', i + 2);
      if (close < 0) {
        out += '\\[';
        continue;
      }
      let body = seg.slice(i + 1, close);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      out += `[${negate ? '^/' : ''}${body.replace(/\\/g, '\\\\').replace(/\]/g, '\\]')}]`;
      i = close;
    } else out += escapeRe(c);
  }
  return out;
}

/**
 * Compiles a relative glob (no braces) into a RegExp over `/`-separated relative paths:
 * `*` and `?` stay within one segment, `[...]` is a class, a `**` segment spans any number of segments.
 */
export function compileGlob(relPattern: string): RegExp {
  const segs = relPattern.split('/').filter((s) => s !== '');
  let re = '';
  let needSep = false;
  segs.forEach((seg, i) => {
    const last = i === segs.length - 1;
    if (seg === '**') {
      re += (needSep ? '/' : '') + (last ? '.*' : '(?:[^/]+/)*');
      needSep = false;
    } else {
      re += (needSep ? '/' : '') + segmentToRegex(seg);
      needSep = true;
    }
  });
  return new RegExp(`^${re}$`, 's');
}

/** How a backend exposes itself to {@link globWith}. */
export interface GlobSource {
  /** Whether a literal URL exists. */
  exists(url: string): Promise<boolean>;
  /** Relative paths (files and directories) of everything below `base`; `[]` when `base` is missing. */
  walk(base: string): Promise<string[]>;
}

/**
 * Splits a pattern into its literal base and the wildcard remainder.
 * @example splitGlobBase('gs://b/a/*\/x') // { base: 'gs://b/a', rest: '*\/x' }
 */
export function splitGlobBase(pattern: string): { base: string; rest: string } {
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*/.exec(pattern);
  const minBase = m === null ? 0 : m[0].length;
  const first = pattern.search(/[*?[]/);
  const slash = pattern.lastIndexOf('/', first);
  if (slash < minBase) return { base: pattern.slice(0, minBase), rest: pattern.slice(minBase).replace(/^\/+/, '') };
  if (slash === 0) return { base: '/', rest: pattern.slice(1) };
  return { base: pattern.slice(0, slash), rest: pattern.slice(slash + 1) };
}

/** Brace-expands `pattern`, globs every member over `source`, and returns unique sorted URLs. */
export async function globWith(pattern: string, source: GlobSource): Promise<string[]> {
  const found = new Set<string>();
  const walks = new Map<string, Promise<string[]>>();
  for (const member of expandBraces(pattern)) {
    if (!hasWildcard(member)) {
      if (await source.exists(member)) found.add(member.replace(/(?<!\/)\/+$/, ''));
      continue;
    }
    const { base, rest } = splitGlobBase(member);
    let walked = walks.get(base);
    if (walked === undefined) {
      walked = source.walk(base);
      walks.set(base, walked);
    }
    const re = compileGlob(rest);
    for (const rel of await walked) {
      if (re.test(rel)) found.add(base === '' ? rel : base.endsWith('/') ? `${base}${rel}` : `${base}/${rel}`);
    }
  }
  return [...found].sort();
}
