import { FrayError } from '../errors.js';

/** Any JSON value: the arguments of a module entrypoint travel as JSON. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** An argv run without a shell. */
export interface BinaryEntrypoint {
  readonly kind: 'binary';
  /** The program; looked up on `PATH` like `spawn` does. */
  readonly command: string;
  readonly args: readonly string[];
  /**
   * Small files (name → UTF-8 content) placed in the job's working directory before it starts. An argument equal
   * to a file name refers to the file: remote backends write it into the task workdir (the cwd); the local backend
   * writes it to a private temp dir and passes that path instead.
   */
  readonly files?: Readonly<Record<string, string>>;
}

/** A named export of a module, called with JSON arguments and awaited; a throw fails the job. */
export interface ModuleEntrypoint {
  readonly kind: 'module';
  /** A path relative to the workspace root (`experiments/x/steps.ts`) or a package specifier (`@marin/pipeline`). */
  readonly module: string;
  readonly exportName: string;
  /** Passed to the export as its single argument, or spread into its arguments with `spreadArgs`. */
  readonly args: JsonValue;
  /** When true, `args` is an array whose elements are the export's arguments (how `remote()` calls ship). */
  readonly spreadArgs?: boolean;
}

/** A closure: runs in-process locally; remote backends run its portable `reentry` instead. */
export interface CallableEntrypoint {
  readonly kind: 'callable';
  readonly fn: () => unknown;
  /** What a remote backend (or the local backend with `callables: 'reentry'`) runs instead of `fn`. */
  readonly reentry?: BinaryEntrypoint | ModuleEntrypoint;
}

/** What a job runs. Build one with the `Entrypoint` helpers. */
export type Entrypoint = BinaryEntrypoint | ModuleEntrypoint | CallableEntrypoint;

const FILE_NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/;

function checkString(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new FrayError('FRAY_INVALID_ARGUMENT', `${what} must be a non-empty string, got ${JSON.stringify(value)}`);
  }
  return value;
}

function checkJson(value: unknown, path: string): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return;
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => checkJson(v, `${path}[${i}]`));
    return;
  } else if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [k, v] of Object.entries(value)) checkJson(v, `${path}.${k}`);
    return;
  }
  throw new FrayError('FRAY_INVALID_ARGUMENT', `module entrypoint ${path} is not JSON (${String(value)})`, {
    details: { path },
  });
}

/** Builders for the three entrypoint kinds; each validates its input and returns a frozen value. */
export const Entrypoint = {
  /**
   * An argv run without a shell.
   * @throws {FrayError} FRAY_INVALID_ARGUMENT for an empty command or non-string args
   */
  fromBinary(command: string, args: readonly string[] = [], options: { files?: Record<string, string> } = {}): BinaryEntrypoint {
    checkString(command, 'binary entrypoint command');
    if (!Array.isArray(args) || args.some((a) => typeof a !== 'string')) {
      throw new FrayError('FRAY_INVALID_ARGUMENT', 'binary entrypoint args must be an array of strings');
    }
    const frozenArgs = Object.freeze([...args]);
    if (options.files === undefined) return Object.freeze({ kind: 'binary', command, args: frozenArgs });
    for (const [name, content] of Object.entries(options.files)) {
      if (!FILE_NAME_RE.test(name) || name === '.' || name === '..') {
        throw new FrayError('FRAY_INVALID_ARGUMENT', `binary entrypoint file name ${JSON.stringify(name)} must be a plain file name of [A-Za-z0-9_.-]`, {
          details: { file: name },
        });
      }
      if (typeof content !== 'string') throw new FrayError('FRAY_INVALID_ARGUMENT', `binary entrypoint file "${name}" must have string content`);
    }
    return Object.freeze({ kind: 'binary', command, args: frozenArgs, files: Object.freeze({ ...options.files }) });
  },

  /**
   * A named export of a module called with JSON `args`.
   * @throws {FrayError} FRAY_INVALID_ARGUMENT for a missing module/export name or non-JSON args
   */
  fromModule(options: { module: string; exportName: string; args?: JsonValue; spreadArgs?: boolean }): ModuleEntrypoint {
    checkString(options.module, 'module entrypoint module');
    checkString(options.exportName, 'module entrypoint exportName');
    const args = options.args ?? (options.spreadArgs === true ? [] : null);
    checkJson(args, 'args');
    if (options.spreadArgs === true) {
      if (!Array.isArray(args)) throw new FrayError('FRAY_INVALID_ARGUMENT', 'module entrypoint args must be an array with spreadArgs');
      return Object.freeze({ kind: 'module', module: options.module, exportName: options.exportName, args, spreadArgs: true });
    }
    return Object.freeze({ kind: 'module', module: options.module, exportName: options.exportName, args });
  },

  /**
   * A closure; `reentry` is its portable form for remote backends.
   * @throws {FrayError} FRAY_INVALID_ARGUMENT when `fn` is not a function or `reentry` is a callable
   */
  fromCallable(fn: () => unknown, options: { reentry?: BinaryEntrypoint | ModuleEntrypoint } = {}): CallableEntrypoint {
    if (typeof fn !== 'function') {
      throw new FrayError('FRAY_INVALID_ARGUMENT', 'callable entrypoint fn must be a function');
    }
    const { reentry } = options;
    if (reentry !== undefined && reentry.kind !== 'binary' && reentry.kind !== 'module') {
      throw new FrayError('FRAY_INVALID_ARGUMENT', 'callable entrypoint reentry must be a binary or module entrypoint');
    }
    return Object.freeze(reentry === undefined ? { kind: 'callable', fn } : { kind: 'callable', fn, reentry });
  },
} as const;
