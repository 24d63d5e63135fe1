/** Options shared by every package's error class. */
export interface CodedErrorOptions {
  /** The error this one wraps; walk it with `cause` chains, never paste its text into the message. */
  cause?: unknown;
  /** Whether retrying can succeed. @default true for the package's transient codes, else false */
  retryable?: boolean;
  /** Structured context for callers and logs (paths, counts, partial results). */
  details?: Record<string, unknown>;
}

/**
 * The mechanics behind each package's single error class (`RiggingError`, `IrisError`, `FrayError`,
 * `ExecutorError`): a closed `code`, a `retryable` flag and a `cause` chain. Each package subclasses
 * it once, with its own code union, its `RETRYABLE` set and its own brand symbol.
 */
export abstract class CodedError<TCode extends string> extends Error {
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;

  protected constructor(
    readonly code: TCode,
    message: string,
    opts: CodedErrorOptions,
    retryableCodes: ReadonlySet<TCode>,
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.retryable = opts.retryable ?? retryableCodes.has(code);
    this.details = opts.details ?? {};
  }
}

/** Brand check that still works when two copies of a module are loaded. */
export function hasBrand(e: unknown, brand: symbol): boolean {
  return typeof e === 'object' && e !== null && brand in e;
}
