import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Frames captured when looking for the entry script among `executorMain`'s callers. */
const STACK_FRAMES = 64;

/**
 * The script remote workers should re-enter: `process.argv[1]` when the current call stack passes
 * through it (the experiment's entry script called `executorMain`, directly or through helpers),
 * else `null`. In a test runner or a REPL `process.argv[1]` is the runner itself, and re-entering it
 * would not rebuild the experiment's steps.
 */
export function entryScriptOfCaller(argv1: string | undefined = process.argv[1], stack?: string): string | null {
  if (argv1 === undefined || argv1 === '') return null;
  const script = resolve(argv1);
  let text = stack;
  if (text === undefined) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = STACK_FRAMES;
    text = new Error('entry script probe').stack ?? '';
    Error.stackTraceLimit = limit;
  }
  const url = pathToFileURL(script).href;
  // Frames name a module by file URL (ESM) or path (CJS), followed by :line:column.
  return text.includes(`${url}:`) || text.includes(`(${script}:`) || text.includes(` ${script}:`) ? script : null;
}
