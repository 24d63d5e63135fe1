import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { causeChain, describeFailure } from '../run/run-report.js';
import type { Palette } from '../progress/colour.js';

/** The folders of our own packages (source or installed): frames in them are not the user's code. */
const OWN_ROOTS: readonly string[] = (() => {
  // src/main/ (source) or dist/ (built): the package root is two or one levels up.
  const here = dirname(fileURLToPath(import.meta.url));
  const root = here.endsWith(`${sep}main`) ? join(here, '..', '..') : join(here, '..');
  const siblings = dirname(root);
  return ['rigging', 'iris', 'fray', 'executor', 'pipeline'].flatMap((n) => ['src', 'dist'].map((d) => `${join(siblings, n, d)}${sep}`));
})();

const FRAME = /^\s*at (?:.*? \()?((?:file:\/\/)?[^()\s]+?):(\d+):(\d+)\)?$/;

/**
 * The first stack frame of `error` (innermost cause first) in the user's own code, as
 * `/abs/path/file.js:12:5` (a form terminals and editors open): not in Node's internals, not under
 * `node_modules`, not in our own packages. `null` when no such frame exists.
 */
export function userFrame(error: unknown, ownRoots: readonly string[] = OWN_ROOTS): string | null {
  const chain = causeChain(error).reverse();
  for (const e of chain) {
    const stack = typeof e === 'object' && e !== null && typeof (e as { stack?: unknown }).stack === 'string' ? (e as { stack: string }).stack : '';
    for (const line of stack.split('\n').slice(1)) {
      const m = FRAME.exec(line);
      if (m === null) continue;
      let file = m[1]!;
      if (file.startsWith('node:') || !(file.startsWith('/') || file.startsWith('file://') || /^[A-Za-z]:\\/.test(file))) continue;
      if (file.startsWith('file://')) file = fileURLToPath(file);
      if (file.includes(`${sep}node_modules${sep}`) || ownRoots.some((r) => file.startsWith(r))) continue;
      return `${file}:${m[2]}:${m[3]}`;
    }
  }
  return null;
}

/** Hints for codes whose fix is usually the same. */
const HINTS: Record<string, string> = {
  ENOENT: 'a path the step reads does not exist; check the step that should have written it',
  RIGGING_NOT_FOUND: 'a path the step reads does not exist; check the step that should have written it',
  EACCES: 'no permission on a path the step uses; check --prefix and the paths in its config',
  RIGGING_PERMISSION_DENIED: 'no permission on a path the step uses; check --prefix and the paths in its config',
  ENOSPC: 'the disk is full; free space or pick another --prefix',
  EXECUTOR_LEASE_LOST: 'another executor took the step over (was this process paused or overloaded?); rerun to continue',
  EXECUTOR_INTERRUPTED: 'rerun to continue; the step starts again at once',
  EXECUTOR_PREVIOUSLY_FAILED: 'rerun with --force-run-failed to retry it',
  FRAY_BACKEND_UNAVAILABLE: 'the cluster did not accept the job; check that it is up (ray status, iris cluster status) and retry',
};

/** The code worth showing: our coded errors first, else a system error's (`ENOENT`). */
export function failureCode(error: unknown): string | null {
  const f = describeFailure(error);
  if (f.code !== null && f.code !== 'EXECUTOR_STEP_FAILED') return f.code;
  for (const e of causeChain(error).reverse()) {
    const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
    if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) return code;
  }
  return f.code === 'EXECUTOR_STEP_FAILED' ? null : f.code;
}

/** The hint of an error: its own `details.hint`, else the table's for its code. */
export function failureHint(error: unknown, code: string | null): string | null {
  for (const e of causeChain(error)) {
    const details = typeof e === 'object' && e !== null ? (e as { details?: unknown }).details : undefined;
    if (typeof details === 'object' && details !== null && typeof (details as { hint?: unknown }).hint === 'string') return (details as { hint: string }).hint;
  }
  return code === null ? null : (HINTS[code] ?? null);
}

/**
 * The last meaningful lines of a failed job's output, from the first error in the chain whose
 * `details.outputTail` lists them (with `details.logPath`, where the whole output is); `null` when none does.
 */
export function jobOutputOf(error: unknown): { tail: string[]; path: string | null } | null {
  for (const e of causeChain(error)) {
    const details = typeof e === 'object' && e !== null ? (e as { details?: unknown }).details : undefined;
    if (typeof details !== 'object' || details === null) continue;
    const { outputTail, logPath } = details as { outputTail?: unknown; logPath?: unknown };
    if (!Array.isArray(outputTail) || outputTail.length === 0) continue;
    return { tail: outputTail.map(String), path: typeof logPath === 'string' ? logPath : null };
  }
  return null;
}

/** What a failure block shows besides the error. */
export interface FailureBlockInput {
  /** The step's label, or `null` for a run-level error. */
  label: string | null;
  error: unknown;
  /** Where the full error (with stacks) was written, if anywhere. */
  errorLog: string | null;
  c: Palette;
}

/**
 * One block per failed step:
 *
 *     FAILED hello_world/stats-b5daf3: ENOENT: no such file or directory, open '…' [ENOENT]
 *       at /home/me/exp/hello_world.js:37:22
 *       last lines of the job's output (all of it: /tmp/marin/checkpoints/run/logs/train_lm-….log):
 *         ValueError: No source and no cache found for component quickstart split train
 *       logs: iris job logs /me/job-1 · full error: /tmp/marin-executor/hello_world-….log
 *       hint: a path the step reads does not exist; check the step that should have written it
 */
export function formatFailureBlock(input: FailureBlockInput): string[] {
  const { error, c } = input;
  const f = describeFailure(error);
  const code = failureCode(error);
  // `FAILED <label>: …` is also what Iris keeps as the cause of a failed job (its last such line).
  const head = input.label === null ? `${c.red('error:')} ${f.cause}` : `${c.red('FAILED')} ${input.label}: ${f.cause}`;
  const lines = [`${head}${code === null ? '' : c.dim(` [${code}]`)}`];
  const frame = userFrame(error);
  if (frame !== null) lines.push(`  at ${frame}`);
  const output = jobOutputOf(error);
  if (output !== null) {
    lines.push(c.dim(`  last lines of the job's output${output.path === null ? '' : ` (all of it: ${output.path})`}:`));
    for (const line of output.tail) lines.push(`    ${line}`);
  }
  const where = [f.logs === null ? null : `logs: ${f.logs}`, input.errorLog === null ? null : `full error: ${input.errorLog}`].filter((x) => x !== null);
  if (where.length > 0) lines.push(c.dim(`  ${where.join(' · ')}`));
  const hint = failureHint(error, code);
  if (hint !== null) lines.push(`  ${c.yellow('hint:')} ${hint}`);
  return lines;
}
