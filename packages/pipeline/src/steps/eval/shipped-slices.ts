import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { evalSlicesPath } from '../../assets.js';

/** A shipped slice of a registered lm-eval task: its split files, in the schema of the task's hub dataset. */
export interface ShippedSlice {
  /** The lm-eval task name. */
  task: string;
  /** Split name (`train`, `validation`, `test`) → absolute JSONL path. */
  splits: Record<string, string>;
}

/** The registered lm-eval tasks that have a shipped slice, sorted. */
export function shippedSliceTasks(): string[] {
  const root = evalSlicesPath();
  return existsSync(root) ? readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort() : [];
}

/** The shipped slice of lm-eval task `task`, or `null` when none is shipped. */
export function shippedSliceOf(task: string): ShippedSlice | null {
  if (!/^[A-Za-z0-9_.-]+$/.test(task)) return null;
  const dir = join(evalSlicesPath(), task);
  if (!existsSync(dir)) return null;
  const splits: Record<string, string> = {};
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.jsonl')).sort()) splits[f.slice(0, -'.jsonl'.length)] = join(dir, f);
  return { task, splits };
}
