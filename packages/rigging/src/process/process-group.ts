import { readdirSync, readFileSync } from 'node:fs';
import { pollUntil } from '../retry/poll-until.js';
import type { Sleep } from '../retry/sleep.js';

/**
 * Sends `signal` to every process of group `pgid` (a child spawned with `detached: true` leads a group
 * whose id is its pid).
 *
 * @returns false when the group is already gone (ESRCH)
 * @throws the `kill(2)` error for anything else (EPERM: the group belongs to another user)
 */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw e;
  }
}

/**
 * True while at least one non-zombie process is in group `pgid`. Killed orphans linger as zombies until
 * init reaps them, which some container inits do only every few seconds; they no longer run, so they do
 * not count. Without `/proc` (macOS), any member counts.
 */
export function isProcessGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    // EPERM means a member exists but belongs to someone else; it still counts as alive.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  return liveMembers(pgid) !== 0;
}

/** Non-zombie members of `pgid` by `/proc/<pid>/stat`; -1 when there is no `/proc`. */
function liveMembers(pgid: number): number {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return -1;
  }
  let count = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited between readdir and read
    }
    // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] !== 'Z' && Number(fields[2]) === pgid) count += 1;
  }
  return count;
}

/** Options of {@link terminateProcessGroup}. */
export interface TerminateProcessGroupOptions {
  /** How long the group gets between SIGTERM and SIGKILL. */
  graceMs: number;
  /** How long to wait for the group to vanish after SIGKILL. @default 30000 */
  killTimeoutMs?: number;
  /**
   * True once the group counts as gone. A reaped leader leaves no zombie behind, but a not-yet-reaped
   * child does, so callers that own the leader pass their own check (leader exited and group empty).
   * @default () => !isProcessGroupAlive(pgid)
   */
  isGone?: () => boolean;
  /** Interval of the gone checks. @default 50 */
  pollMs?: number;
  /** Injected in tests. @default timers/promises setTimeout */
  sleep?: Sleep;
  /** Injected in tests. @default Date.now */
  now?: () => number;
  /** Injected in tests. @default signalProcessGroup */
  signal?: (pgid: number, signal: NodeJS.Signals) => boolean;
}

/**
 * Stops a whole process group: SIGTERM, wait up to `graceMs` for it to be gone, SIGKILL, wait up to
 * `killTimeoutMs`. Grandchildren share the group, so they die with it.
 *
 * @returns whether SIGKILL had to be sent
 */
export async function terminateProcessGroup(pgid: number, options: TerminateProcessGroupOptions): Promise<boolean> {
  const isGone = options.isGone ?? (() => !isProcessGroupAlive(pgid));
  const send = options.signal ?? signalProcessGroup;
  const poll = { interval: options.pollMs ?? 50, sleep: options.sleep, now: options.now };
  if (!send(pgid, 'SIGTERM')) return false;
  if (await pollUntil(isGone, { ...poll, timeoutMs: options.graceMs })) return false;
  send(pgid, 'SIGKILL');
  await pollUntil(isGone, { ...poll, timeoutMs: options.killTimeoutMs ?? 30_000 });
  return true;
}
