import { z } from 'zod';
import { ExecutorError } from '../errors.js';
import { ProgressModeSchema } from '../progress/progress-mode.js';
import { closestMatches } from '../internal/suggest.js';
import { compileRunOnly } from '../run/run-only.js';

/** The parsed command line of an experiment entry script, as `executorMain` uses it. */
export const ExecutorArgsSchema = z.object({
  prefix: z.string().min(1).nullable(),
  executorInfoBasePath: z.string().min(1).nullable(),
  dryRun: z.boolean(),
  forceRunFailed: z.boolean(),
  runOnly: z.array(z.string()).nullable(),
  forceRun: z.array(z.string()).nullable(),
  maxConcurrent: z.number().int().nullable(),
  progress: ProgressModeSchema,
  statusInterval: z.number().positive().nullable(),
  help: z.boolean(),
  verbose: z.boolean(),
  quiet: z.boolean(),
  json: z.boolean(),
  runStep: z.string().nullable(),
  stepConfigFile: z.string().nullable(),
  backend: z.enum(['local', 'iris', 'ray']).nullable(),
});

/** The parsed command line of an experiment entry script. */
export type ExecutorArgs = z.output<typeof ExecutorArgsSchema>;

/** The usage text printed by `--help` and on a usage error, for the script named `script`. */
export function executorUsage(script: string): string {
  return `usage: ${script} [options]

options:
  --prefix <path|url>                  root of all outputs (default: MARIN_PREFIX, cluster config
                                       root, regional bucket, else /tmp/marin)
  --executor-info-base-path <path|url> where the experiment JSON goes (default: <prefix>/experiments)
  --dry-run [true|false]               explain what would run and write nothing (default: false)
  --force-run-failed [true|false]      rerun steps whose last attempt failed (default: true)
  --run-only <regex>                   run these steps (matched by regex) and their dependencies
                                       only; repeatable, or a JSON array '["^a", "b"]'; a pattern
                                       that matches no step is an error
  --force-run <regex>                  run matching steps again even if their output succeeded (the
                                       old output is replaced under the lease); repeatable
  --max-concurrent <n>                 at most n steps active at once (default: 8)
  --progress auto|live|plain           progress display (default: auto)
  --status-interval <seconds>          off a terminal, print a running step's status (a training
                                       step's step, loss, tokens/s, ETA) at most this often
                                       (default: 10)
  --json [true|false]                  print the dry-run plan, or the run's outcome per step, as
                                       JSON on stdout (default: false)
  --quiet [true|false]                 print only failures and the summary (default: false)
  --verbose [true|false]               print every step state change, log line and full error
                                       stacks (default: false)
  --backend local|iris|ray             the Fray backend remote steps run on (default: FRAY_BACKEND,
                                       an Iris task's cluster, RAY_ADDRESS's Ray cluster, else local)
  --help                               print this help
  --run-step <output path> --step-config-file <file>
                                       internal: how a remote step's job re-enters this script
                                       (worker mode: run only that step, write no status)

Underscore spellings (--dry_run, --run_only, ...) and --flag=value are accepted.
Exit codes: 0 success, 1 a step or the run failed, 2 bad arguments.
`;
}

/** The usage text with a placeholder script name; `executorMain` prints it with the script's own name. */
export const EXECUTOR_USAGE = executorUsage('<entry script>');

type FlagKind = 'string' | 'boolean' | 'runOnly' | 'integer' | 'seconds' | 'progress' | 'backend' | 'help' | 'internal';

const FLAGS: Record<string, { key: keyof ExecutorArgs; kind: FlagKind }> = {
  prefix: { key: 'prefix', kind: 'string' },
  'executor-info-base-path': { key: 'executorInfoBasePath', kind: 'string' },
  'dry-run': { key: 'dryRun', kind: 'boolean' },
  'force-run-failed': { key: 'forceRunFailed', kind: 'boolean' },
  'run-only': { key: 'runOnly', kind: 'runOnly' },
  'force-run': { key: 'forceRun', kind: 'runOnly' },
  'max-concurrent': { key: 'maxConcurrent', kind: 'integer' },
  progress: { key: 'progress', kind: 'progress' },
  'status-interval': { key: 'statusInterval', kind: 'seconds' },
  backend: { key: 'backend', kind: 'backend' },
  help: { key: 'help', kind: 'help' },
  verbose: { key: 'verbose', kind: 'boolean' },
  quiet: { key: 'quiet', kind: 'boolean' },
  json: { key: 'json', kind: 'boolean' },
  'run-step': { key: 'runStep', kind: 'internal' },
  'step-config-file': { key: 'stepConfigFile', kind: 'internal' },
};

const TRUE_WORDS = new Set(['true', '1', 'yes']);
const FALSE_WORDS = new Set(['false', '0', 'no']);

function usageError(message: string, details: Record<string, unknown> = {}): ExecutorError {
  return new ExecutorError('EXECUTOR_INVALID_ARGUMENT', message, { details: { ...details, usage: true } });
}

function parseBooleanWord(word: string): boolean | null {
  const w = word.toLowerCase();
  if (TRUE_WORDS.has(w)) return true;
  if (FALSE_WORDS.has(w)) return false;
  return null;
}

function parseRunOnlyValue(flag: string, value: string): string[] {
  if (!value.trimStart().startsWith('[')) return [value];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (cause) {
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `--${flag} value ${value} is not a valid JSON array`, {
      cause,
      details: { usage: true },
    });
  }
  const list = z.array(z.string()).safeParse(parsed);
  if (!list.success) throw usageError(`--${flag} value ${value} must be a JSON array of strings`);
  return list.data;
}

/**
 * Parses an entry script's arguments (`process.argv.slice(2)`) as Marin's `executor_main` does.
 *
 * `--flag value` and `--flag=value` both work; `_` and `-` spellings are equivalent; a boolean flag
 * alone means `true` and consumes a following `true|false|1|0|yes|no`; `--run-only` accumulates and
 * takes a JSON array when its value starts with `[`.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT (with `details.usage = true`) for an unknown
 * flag, a positional argument, a missing or malformed value, `--max-concurrent` below 1 or a
 * `--run-only` pattern that is not a valid regular expression.
 */
export function parseExecutorArgs(argv: readonly string[]): ExecutorArgs {
  const out: ExecutorArgs = {
    prefix: null,
    executorInfoBasePath: null,
    dryRun: false,
    forceRunFailed: true,
    runOnly: null,
    forceRun: null,
    maxConcurrent: null,
    progress: 'auto',
    statusInterval: null,
    help: false,
    verbose: false,
    quiet: false,
    json: false,
    runStep: null,
    stepConfigFile: null,
    backend: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--') || arg === '--') {
      throw usageError(`unexpected positional argument ${JSON.stringify(arg)}`, { argument: arg });
    }
    const eq = arg.indexOf('=');
    const rawName = (eq === -1 ? arg.slice(2) : arg.slice(2, eq)).replaceAll('_', '-');
    const inline = eq === -1 ? null : arg.slice(eq + 1);
    const flag = FLAGS[rawName];
    if (flag === undefined) {
      const close = closestMatches(rawName, Object.keys(FLAGS).filter((f) => FLAGS[f]!.kind !== 'internal'), 1);
      const hint = close.length > 0 ? `; did you mean --${close[0]}?` : '';
      throw usageError(`unknown flag ${JSON.stringify(arg)}${hint}`, { flag: arg, suggestions: close.map((f) => `--${f}`) });
    }
    const takeValue = (): string => {
      if (inline !== null) return inline;
      const next = argv[i + 1];
      if (next === undefined) throw usageError(`flag --${rawName} needs a value`, { flag: arg });
      i++;
      return next;
    };
    switch (flag.kind) {
      case 'help':
        out.help = true;
        break;
      case 'boolean': {
        let value = true;
        if (inline !== null) {
          const b = parseBooleanWord(inline);
          if (b === null) throw usageError(`flag --${rawName} expects true or false, got ${JSON.stringify(inline)}`);
          value = b;
        } else if (argv[i + 1] !== undefined && parseBooleanWord(argv[i + 1]!) !== null) {
          value = parseBooleanWord(argv[i + 1]!)!;
          i++;
        }
        (out as Record<string, unknown>)[flag.key] = value;
        break;
      }
      case 'string':
        (out as Record<string, unknown>)[flag.key] = takeValue();
        break;
      case 'runOnly': {
        const key = flag.key as 'runOnly' | 'forceRun';
        out[key] = [...(out[key] ?? []), ...parseRunOnlyValue(rawName, takeValue())];
        break;
      }
      case 'integer': {
        const value = takeValue();
        if (!/^[+-]?\d+$/.test(value.trim())) {
          throw usageError(`max_concurrent must be a positive integer, got ${value}`, { value });
        }
        const n = Number(value);
        if (n < 1) throw usageError(`max_concurrent must be a positive integer, got ${n}`, { value: n });
        out.maxConcurrent = n;
        break;
      }
      case 'seconds': {
        const value = takeValue();
        const n = Number(value);
        if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw usageError(`--${rawName} must be a positive number of seconds, got ${JSON.stringify(value)}`, { value });
        out.statusInterval = n;
        break;
      }
      case 'progress': {
        const value = takeValue();
        const mode = ProgressModeSchema.safeParse(value);
        if (!mode.success) throw usageError(`--progress must be auto, live or plain, got ${JSON.stringify(value)}`);
        out.progress = mode.data;
        break;
      }
      case 'backend': {
        const value = takeValue();
        if (value !== 'local' && value !== 'iris' && value !== 'ray') throw usageError(`--backend must be local, iris or ray, got ${JSON.stringify(value)}`);
        out.backend = value;
        break;
      }
      case 'internal':
        (out as Record<string, unknown>)[flag.key] = takeValue();
        break;
    }
  }
  if (out.runOnly !== null) compileRunOnly(out.runOnly);
  if (out.forceRun !== null) compileRunOnly(out.forceRun, '--force-run');
  if (out.quiet && out.verbose) throw usageError('--quiet and --verbose exclude each other');
  return ExecutorArgsSchema.parse(out);
}
