import { isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Entrypoint, findWorkspaceRoot } from '@marin/fray';
import type { BinaryEntrypoint } from '@marin/fray';
import { ExecutorError } from '../errors.js';

/** Name of the shipped file holding the instantiated step config. */
export const STEP_CONFIG_FILE = 'step_config.json';

/** Executor-internal flags that are never forwarded from the submitter's argv (they take a value). */
const INTERNAL_FLAGS: readonly string[] = ['--prefix', '--run-step', '--step-config-file'];

/** Options of {@link buildStepReentry}. */
export interface StepReentryOptions {
  /** The step's output path; the worker runs the step whose output path equals it. */
  outputPath: string;
  /** The executor prefix the worker must use to recompute the same output paths. */
  prefix: string;
  /** The instantiated config as JSON (lenient, floats kept); shipped as `step_config.json`. */
  stepConfigJson: string;
  /** The entry script. @default process.argv[1] */
  entryScript?: string;
  /** The user's own arguments; `--prefix`, `--run-step` and `--step-config-file` are dropped. @default process.argv.slice(2) */
  userArgs?: readonly string[];
  /** Node flags to repeat. @default process.execArgv */
  execArgv?: readonly string[];
  /** Paths inside it are made relative. @default the git top level of process.cwd() */
  workspace?: string;
}

function stripInternalFlags(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (INTERNAL_FLAGS.includes(arg)) {
      i += 1; // the flag's value
      continue;
    }
    if (INTERNAL_FLAGS.some((f) => arg.startsWith(`${f}=`))) continue;
    out.push(arg);
  }
  return out;
}

/** Makes a path or `file:` URL inside `workspace` relative to it (`./x`, so loaders do not read it as a package). */
function relativize(value: string, workspace: string): string {
  let path: string | undefined;
  if (value.startsWith('file://')) {
    try {
      path = fileURLToPath(value);
    } catch {
      return value;
    }
  } else if (isAbsolute(value)) {
    path = value;
  }
  if (path === undefined) return value;
  const rel = relative(workspace, path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return value;
  return `./${rel.split('\\').join('/')}`;
}

function relativizeFlag(flag: string, workspace: string): string {
  const eq = flag.indexOf('=');
  if (flag.startsWith('--') && eq > 0) return `${flag.slice(0, eq + 1)}${relativize(flag.slice(eq + 1), workspace)}`;
  return relativize(flag, workspace);
}

/**
 * The re-entry command of an executor step: `node <execArgv> <entry script> <user args>
 * --prefix <prefix> --run-step <outputPath> --step-config-file step_config.json`, with `step_config.json` shipped
 * as a file. Paths into the workspace (the script, loader flags such as tsx's) become relative to its root, where
 * remote tasks start (the bundle root) and where the local backend runs re-entered commands.
 */
export function buildStepReentry(options: StepReentryOptions): BinaryEntrypoint {
  const workspace = resolve(options.workspace ?? findWorkspaceRoot());
  const script = options.entryScript ?? process.argv[1];
  if (script === undefined) throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', 'no entry script to re-enter: pass entryScript');
  const execArgv = (options.execArgv ?? process.execArgv).map((f) => relativizeFlag(f, workspace));
  const entry = relativize(script.startsWith('file://') ? script : resolve(script), workspace);
  const userArgs = stripInternalFlags(options.userArgs ?? process.argv.slice(2));
  return Entrypoint.fromBinary(
    'node',
    [...execArgv, entry, ...userArgs, '--prefix', options.prefix, '--run-step', options.outputPath, '--step-config-file', STEP_CONFIG_FILE],
    { files: { [STEP_CONFIG_FILE]: options.stepConfigJson } },
  );
}
