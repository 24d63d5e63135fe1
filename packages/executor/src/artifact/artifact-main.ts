import type { Client } from '@marin/fray';
import { marinPrefix, regionFromPrefix, StoragePath } from '@marin/rigging';
import { ExecutorError } from '../errors.js';
import { silentLogger, stderrLogger } from '../logger.js';
import type { ExecutorLogger } from '../logger.js';
import { runArtifacts } from './artifact-runner.js';
import { ArtifactStep } from './artifact-step.js';
import { VersionCodex, withVersions } from './build-context.js';
import { explainArtifacts, formatArtifactExplanation } from './explain.js';
import type { ArtifactExplanation } from './explain.js';
import { formatPlanEntry, planArtifacts } from './plan.js';
import type { ArtifactPlanEntry } from './plan.js';
import { lowerArtifacts } from './lower.js';
import { runBodyAsWorker } from './remote-body.js';
import { StepContext } from './step-context.js';
import { isMutableVersion, validateVersion } from './version.js';

/** What `build()` may return: one handle, an array, or a name → handle record. */
export type ArtifactBuildResult = ArtifactStep | readonly ArtifactStep[] | Readonly<Record<string, ArtifactStep>>;

/** Parsed run-wide flags of {@link artifactMain} (Marin's `marin.experiment.cli.build_options`). */
export interface ArtifactArgs {
  version: string;
  overrides: Map<string, string>;
  run: boolean;
  maxConcurrent: number;
  prefix: string | null;
  /** Internal: a re-entered worker runs only the body of the artifact at this output path. */
  runStep: string | null;
}

export const ARTIFACT_USAGE = `usage: <script> --version VERSION [--override NAME=VERSION]... [--run] [--max-concurrent N] [--prefix PATH]

  --version VERSION         run-wide default for artifacts that defer their version (YYYY.MM.DD[.N], or dev to iterate); required
  --override NAME=VERSION   the version of one artifact by name; repeatable; an override no artifact uses is an error
  --run                     build the artifacts (default: print the plan: what would run, skip, adopt, rebuild, and drift)
  --max-concurrent N        at most N artifacts built at once (default 8)
  --prefix PATH             storage prefix (default MARIN_PREFIX, …)`;

function usageError(message: string, details: Record<string, unknown> = {}): ExecutorError {
  return new ExecutorError('EXECUTOR_INVALID_ARGUMENT', message, { details: { usage: ARTIFACT_USAGE, ...details } });
}

/**
 * Parses `--version` (required: no silent `dev`), repeatable `--override NAME=VERSION`, `--run`, `--max-concurrent`,
 * `--prefix`; `--flag value` and `--flag=value` both work.
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for an unknown flag, a missing value or `--version`, a malformed
 *   or duplicate override; EXECUTOR_INVALID_VERSION for an invalid version
 */
export function parseArtifactArgs(argv: readonly string[]): ArtifactArgs {
  const out: ArtifactArgs = { version: '', overrides: new Map(), run: false, maxConcurrent: 8, prefix: null, runStep: null };
  let sawVersion = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith('--') && eq > 0 ? arg.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[++i];
      if (next === undefined) throw usageError(`${flag} needs a value`);
      return next;
    };
    switch (flag) {
      case '--version':
        out.version = value();
        validateVersion(out.version);
        sawVersion = true;
        break;
      case '--override': {
        const item = value();
        const at = item.indexOf('=');
        if (at <= 0) throw usageError(`"${item}" is not NAME=VERSION`, { override: item });
        const name = item.slice(0, at);
        const version = item.slice(at + 1);
        if (out.overrides.has(name)) throw usageError(`duplicate override for "${name}"`, { override: name });
        out.overrides.set(name, version);
        break;
      }
      case '--run':
        out.run = true;
        break;
      case '--max-concurrent': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 1) throw usageError(`--max-concurrent must be a positive integer`);
        out.maxConcurrent = n;
        break;
      }
      case '--prefix':
        out.prefix = value();
        break;
      case '--run-step':
        out.runStep = value();
        break;
      case '--step-config-file':
        value(); // the worker rebuilds the config from the same experiment; the shipped copy is informational
        break;
      default:
        throw usageError(`unknown argument ${arg}`, { argument: arg });
    }
  }
  if (!sawVersion) throw usageError('--version is required (there is no silent dev default; pass --version dev to iterate)');
  return out;
}

/**
 * A re-entered worker's run: rebuilds the experiment's graph, finds the artifact at `outputPath`, builds its config
 * against the live context and runs its body, leaving the value for the runner that holds the lease.
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT when no artifact of the graph lives at `outputPath`
 */
async function runStepAsWorker(handles: readonly ArtifactStep[], prefix: string, outputPath: string): Promise<void> {
  const { nodes } = await lowerArtifacts(handles, prefix);
  const want = outputPath.replace(/\/+$/, '');
  const node = nodes.find((n) => n.outputPath.replace(/\/+$/, '') === want);
  if (node === undefined) {
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `--run-step ${outputPath}: no artifact of this experiment lives there (is the worker running the same flags?)`, {
      details: { runStep: outputPath, outputs: nodes.map((n) => n.outputPath) },
    });
  }
  const h = node.handle;
  const ctx = StepContext.forRun({ outputPath: node.outputPath, prefix, region: regionFromPrefix(prefix), runtimeArgs: h.runtimeArgs, deps: h.deps });
  await runBodyAsWorker(h, node.outputPath, await h.buildConfig(ctx));
}

function asHandles(result: ArtifactBuildResult): ArtifactStep[] {
  if (result instanceof ArtifactStep) return [result];
  if (Array.isArray(result)) return [...(result as readonly ArtifactStep[])];
  return Object.values(result as Record<string, ArtifactStep>);
}

/** Options of {@link artifactMain}. */
export interface ArtifactMainOptions {
  /** Builds the experiment's handles; called inside the run-wide version policy, so deferred versions resolve. */
  build: () => ArtifactBuildResult;
  /** @default process.argv.slice(2) */
  argv?: readonly string[];
  logger?: ExecutorLogger;
  /** Where the plan and results go. @default process.stdout */
  out?: { write(text: string): unknown };
  /** Called with the exit code instead of rejecting (an entry script passes `process.exit`). @default rejects */
  exit?: (code: number) => void;
  /** The Fray client remote bodies go to. @default currentClient() */
  client?: Client;
}

/** What {@link artifactMain} did. */
export interface ArtifactMainResult {
  args: ArtifactArgs;
  plan: ArtifactPlanEntry[];
  /** Without `--run`: the explained plan that was printed. */
  explanation: ArtifactExplanation[] | null;
  ran: boolean;
}

/**
 * The entry point of an ArtifactStep experiment (Marin's `experiment_main`): parses the run-wide flags, builds the
 * handles under a {@link VersionCodex} of `--version`/`--override`, refuses an override no artifact used, prints the
 * plan (what would run, skip, adopt, rebuild, and drift), and with `--run` builds them. With `exit`, an error
 * prints one `error: … [CODE]` line and exits 2 (bad input) or 1 (a failed run).
 */
export async function artifactMain(options: ArtifactMainOptions): Promise<ArtifactMainResult | undefined> {
  const out = options.out ?? process.stdout;
  const logger = options.logger ?? stderrLogger;
  try {
    const args = parseArtifactArgs(options.argv ?? process.argv.slice(2));
    const codex = new VersionCodex(args.version, args.overrides);
    const handles = withVersions(codex, () => asHandles(options.build()));
    const unused = codex.unusedOverrides();
    if (unused.length > 0) {
      throw new ExecutorError(
        'EXECUTOR_INVALID_ARGUMENT',
        `--override never applied to any artifact: ${unused.join(', ')}; the name is a typo, or that artifact hardcodes its version`,
        { details: { unused } },
      );
    }
    const prefix = args.prefix !== null ? StoragePath.normalize(args.prefix) : await marinPrefix();
    if (args.runStep !== null) {
      await runStepAsWorker(handles, prefix, args.runStep);
      return { args, plan: [], explanation: null, ran: true };
    }
    if (!args.run) {
      // The plan explained: each artifact's action with its reason and recipe diff; nothing is written.
      const explanation = await explainArtifacts(handles, { prefix, logger });
      out.write(`Plan (pass --run to build) under ${prefix}:\n`);
      for (const line of formatArtifactExplanation(explanation)) out.write(`${line}\n`);
      return { args, plan: await planArtifacts(handles, { prefix, logger: silentLogger }), explanation, ran: false };
    }
    const plan = await planArtifacts(handles, { prefix, logger });
    out.write(`Building under ${prefix}:\n`);
    for (const e of plan) out.write(`  ${formatPlanEntry(e)}${isMutableVersion(e.id.slice(e.id.lastIndexOf('@') + 1)) ? '  (mutable: rebuilds every run)' : ''}\n`);
    // Workers re-enter with the script's whole command line (its own flags too), as executorMain's do.
    const entryScript = process.argv[1];
    await runArtifacts(handles, {
      prefix,
      maxConcurrent: args.maxConcurrent,
      logger,
      ...(options.client === undefined ? {} : { client: options.client }),
      reentry: entryScript === undefined ? null : { entryScript, userArgs: process.argv.slice(2), execArgv: process.execArgv },
    });
    const counts = new Map<string, number>();
    for (const e of plan) counts.set(e.action, (counts.get(e.action) ?? 0) + 1);
    out.write(`${plan.length} artifacts: ${[...counts].map(([a, n]) => `${n} ${a}`).join(', ')}\n`);
    return { args, plan, explanation: null, ran: true };
  } catch (e) {
    if (options.exit === undefined) throw e;
    const code = ExecutorError.is(e) ? e.code : 'unexpected';
    let cause: unknown = e;
    while (ExecutorError.hasCode(cause, 'EXECUTOR_STEP_FAILED') && (cause as Error).cause !== undefined) cause = (cause as Error).cause;
    const message = (cause instanceof Error ? cause.message : String(cause)).split('\n')[0];
    process.stderr.write(`error: ${message} [${ExecutorError.is(cause) ? cause.code : code}]\n`);
    const usage = ExecutorError.is(e) && (e.code === 'EXECUTOR_INVALID_ARGUMENT' || e.code === 'EXECUTOR_INVALID_VERSION');
    options.exit(usage ? 2 : 1);
    return undefined;
  }
}
