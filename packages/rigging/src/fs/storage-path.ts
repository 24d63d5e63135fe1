import { RiggingError } from '../errors.js';

const SCHEME_RE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/s;
const SCHEME_ALIASES: Record<string, string> = { gcs: 'gs', s3a: 's3' };

function invalid(message: string, path: string, operation: string): RiggingError {
  return new RiggingError('RIGGING_INVALID_ARGUMENT', message, { details: { path, operation } });
}

function splitSegments(s: string): string[] {
  return s.split('/').filter((p) => p !== '');
}

/** Returns the canonical scheme of `url` (`gcs` → `gs`, `s3a` → `s3`), or `null` for a bare local path. */
export function schemeOf(url: string): string | null {
  const m = SCHEME_RE.exec(url);
  if (m === null) return null;
  const raw = (m[1] ?? '').toLowerCase();
  return SCHEME_ALIASES[raw] ?? raw;
}

/**
 * A parsed storage location: a frozen `{ scheme, netloc, segments, rooted }` value.
 *
 * Object keys are never normalised beyond dropping empty segments: `.` and `..` stay literal.
 *
 * @example
 * StoragePath.parse('gs://b//x/y/').toString(); // 'gs://b/x/y'
 */
export class StoragePath {
  private constructor(
    /** Lower-cased canonical scheme, or `null` for a bare local path. */
    readonly scheme: string | null,
    /** Bucket (or host) for object stores; empty for local, `file` and `mirror` paths. */
    readonly netloc: string,
    /** Path segments, empty ones dropped. */
    readonly segments: readonly string[],
    /** Whether a local path starts at `/` (always true for `file://`). */
    readonly rooted: boolean,
  ) {
    Object.freeze(this.segments);
    Object.freeze(this);
  }

  /** Parses a URL or local path. */
  static parse(s: string): StoragePath {
    const m = SCHEME_RE.exec(s);
    if (m === null) return new StoragePath(null, '', splitSegments(s), s.startsWith('/'));
    const raw = (m[1] ?? '').toLowerCase();
    const scheme = SCHEME_ALIASES[raw] ?? raw;
    const rest = m[2] ?? '';
    if (scheme === 'mirror') return new StoragePath(scheme, '', splitSegments(rest), false);
    if (scheme === 'file') return new StoragePath(scheme, '', splitSegments(rest), true);
    const [netloc = '', ...segments] = splitSegments(rest);
    return new StoragePath(scheme, netloc, segments, true);
  }

  /** `parse(s).toString()`. */
  static normalize(s: string): string {
    return StoragePath.parse(s).toString();
  }

  /** Builds a path from its parts. */
  static of(parts: { scheme: string | null; netloc?: string; segments: readonly string[]; rooted?: boolean }): StoragePath {
    return new StoragePath(parts.scheme, parts.netloc ?? '', [...parts.segments], parts.rooted ?? parts.scheme !== null);
  }

  /** The segments joined by `/` (the object key for object stores). */
  get key(): string {
    return this.segments.join('/');
  }

  /** True for bare paths and `file://`. */
  get isLocal(): boolean {
    return this.scheme === null || this.scheme === 'file';
  }

  /** The opposite of {@link StoragePath.isLocal}. */
  get isRemote(): boolean {
    return !this.isLocal;
  }

  /** The bucket of an object-store path (its netloc), or `null` for local and `mirror://` paths. */
  get bucket(): string | null {
    if (this.isLocal || this.scheme === 'mirror') return null;
    return this.netloc;
  }

  /** The last segment, or `''` at a root. */
  get name(): string {
    return this.segments[this.segments.length - 1] ?? '';
  }

  /** The path without its last segment (a root is its own parent). */
  get parent(): StoragePath {
    return new StoragePath(this.scheme, this.netloc, this.segments.slice(0, -1), this.rooted);
  }

  /**
   * Appends segments; each part may contain `/`.
   * @throws {RiggingError} RIGGING_INVALID_ARGUMENT if a part starts with `/` or carries a scheme.
   */
  join(...parts: string[]): StoragePath {
    const segs = [...this.segments];
    for (const part of parts) {
      if (part.startsWith('/') || SCHEME_RE.test(part)) {
        throw invalid(`cannot join "${part}" to "${this.toString()}": parts must be relative`, part, 'join');
      }
      segs.push(...splitSegments(part));
    }
    return new StoragePath(this.scheme, this.netloc, segs, this.rooted);
  }

  /**
   * The relative key of this path under `base` (`''` when equal).
   * @throws {RiggingError} RIGGING_INVALID_ARGUMENT if this path is not under `base`.
   */
  relativeTo(base: StoragePath | string): string {
    const b = typeof base === 'string' ? StoragePath.parse(base) : base;
    const same =
      normScheme(b.scheme) === normScheme(this.scheme) &&
      b.netloc === this.netloc &&
      b.rooted === this.rooted &&
      b.segments.length <= this.segments.length &&
      b.segments.every((s, i) => this.segments[i] === s);
    if (!same) {
      throw invalid(`path "${this.toString()}" is not under "${b.toString()}"`, this.toString(), 'relativeTo');
    }
    return this.segments.slice(b.segments.length).join('/');
  }

  /** Rebuilds `scheme://netloc/a/b`, `file:///a/b`, `/a/b` or `a/b`. */
  toString(): string {
    const key = this.key;
    if (this.scheme === null) return this.rooted ? `/${key}` : key;
    if (this.scheme === 'file') return `file:///${key}`;
    if (this.scheme === 'mirror') return `mirror://${key}`;
    return key === '' ? `${this.scheme}://${this.netloc}` : `${this.scheme}://${this.netloc}/${key}`;
  }
}

// `file:///x` and `/x` name the same place.
function normScheme(s: string | null): string | null {
  return s === 'file' ? null : s;
}

/**
 * Joins `prefix` and `rel` with exactly one `/`, changing nothing else (`a//b` inside `rel` survives).
 * @example prefixJoin('gs://b/', '/a') // 'gs://b/a'
 */
export function prefixJoin(prefix: string, rel: string): string {
  let p = prefix;
  // Keep the slashes that belong to `scheme://` (and the root of `file:///` or `/`).
  while (p.length > 1 && p.endsWith('/') && !/:\/\/\/?$/.test(p)) p = p.slice(0, -1);
  const r = rel.replace(/^\/+/, '');
  if (r === '') return p;
  if (p === '') return r;
  return p.endsWith('/') ? `${p}${r}` : `${p}/${r}`;
}

/**
 * Splits `gs://bucket/key` into its bucket and key (`''` when absent).
 * @throws {RiggingError} RIGGING_INVALID_ARGUMENT if `url` is not a `gs://` or `gcs://` URL.
 */
export function splitGcsPath(url: string): { bucket: string; key: string } {
  const m = /^(gs|gcs):\/\/([^/]*)\/?(.*)$/is.exec(url);
  if (m === null || (m[2] ?? '') === '') throw invalid(`not a gs:// url: "${url}"`, url, 'splitGcsPath');
  return { bucket: m[2] ?? '', key: m[3] ?? '' };
}
