import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { readGroup } from './resource-usage.js';

/** Sends `signal` to every process of group `pgid`; returns false when the group is already gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw e;
  }
}

/**
 * True while at least one non-zombie process is in group `pgid`. Killed orphans linger as zombies
 * until init reaps them, which some container inits do only every few seconds; they no longer run,
 * so they do not count.
 */
export function isGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    // EPERM means a member exists but belongs to someone else; it still counts as alive.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  return existsSync('/proc/self/stat') ? readGroup(pgid).processCount > 0 : true;
}

/** Polls until `done()` is true or `timeoutMs` passes; resolves to whether `done()` became true. */
export async function waitUntil(done: () => boolean, timeoutMs: number, pollMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (done()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(Math.min(pollMs, Math.max(1, deadline - Date.now())));
  }
}

/** Options of {@link terminateGroup}. */
export interface TerminateGroupOptions {
  /** How long the group gets between SIGTERM and SIGKILL. */
  termTimeoutMs: number;
  /** How long to wait for the group to vanish after SIGKILL. @default 30000 */
  killTimeoutMs?: number;
  /**
   * True once the group counts as gone. A reaped leader leaves no zombie behind, but a
   * not-yet-reaped child does, so callers that own the leader pass their own check.
   * @default () => !isGroupAlive(pgid)
   */
  isGone?: () => boolean;
}

/**
 * Stops a whole process group: SIGTERM, wait up to `termTimeoutMs`, SIGKILL, wait up to
 * `killTimeoutMs`. Grandchildren share the group, so they die with it.
 * @returns whether SIGKILL had to be sent
 */
export async function terminateGroup(pgid: number, options: TerminateGroupOptions): Promise<boolean> {
  const isGone = options.isGone ?? (() => !isGroupAlive(pgid));
  if (!signalGroup(pgid, 'SIGTERM')) return false;
  if (await waitUntil(isGone, options.termTimeoutMs)) return false;
  signalGroup(pgid, 'SIGKILL');
  await waitUntil(isGone, options.killTimeoutMs ?? 30_000);
  return true;
}
