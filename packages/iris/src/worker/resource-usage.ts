import { readdirSync, readFileSync } from 'node:fs';

/** Resource usage of one attempt's process group (or of the host), as reported to the controller. */
export interface ResourceUsage {
  /** CPU in millicores averaged since the previous sample (1000 = one core busy). */
  cpuMillicores: number;
  /** Resident memory of the group now. */
  memoryBytes: number;
  /** Highest `memoryBytes` seen so far. */
  peakMemoryBytes: number;
  /** Processes in the group now. */
  processCount: number;
}

/** A usage with every figure zero. */
export const EMPTY_USAGE: ResourceUsage = { cpuMillicores: 0, memoryBytes: 0, peakMemoryBytes: 0, processCount: 0 };

// Linux reports CPU times in clock ticks (USER_HZ, 100 on every mainstream kernel) and RSS in pages.
const CLOCK_TICKS_PER_SECOND = 100;
const PAGE_BYTES = 4096;

/** One reading of a group from `/proc`: raw cumulative CPU ticks and current RSS. */
export interface GroupReading {
  cpuTicks: number;
  rssBytes: number;
  processCount: number;
}

/** Fields of `/proc/<pid>/stat` after the `(comm)` field, which may itself contain spaces. */
export function parseProcStat(
  text: string,
): { state: string; pgrp: number; utime: number; stime: number; startTime: number; rssPages: number } | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  // After ") " come field 3 (state) onwards; index 0 here is field 3.
  const f = text.slice(close + 2).trim().split(/\s+/);
  const num = (i: number): number => Number(f[i - 3]);
  return { state: f[0] ?? '', pgrp: num(5), utime: num(14), stime: num(15), startTime: num(22), rssPages: num(24) };
}

/** Reads the `/proc` start time (clock ticks since boot) of `pid`, or null when it is gone. */
export function processStartTime(pid: number): number | null {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.startTime ?? null;
  } catch {
    return null;
  }
}

/** Sums CPU ticks, RSS and process count over every live process of group `pgid`. */
export function readGroup(pgid: number): GroupReading {
  let cpuTicks = 0;
  let rssBytes = 0;
  let processCount = 0;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return { cpuTicks, rssBytes, processCount };
  }
  for (const pid of pids) {
    let stat;
    try {
      stat = parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      continue; // exited between readdir and read
    }
    // Zombies hold no memory and run no code; they only wait for a parent (maybe a slow init) to reap them.
    if (stat === null || stat.pgrp !== pgid || stat.state === 'Z') continue;
    cpuTicks += stat.utime + stat.stime;
    rssBytes += stat.rssPages * PAGE_BYTES;
    processCount += 1;
  }
  return { cpuTicks, rssBytes, processCount };
}

/**
 * Turns successive group readings into {@link ResourceUsage}: CPU as a rate between samples, memory
 * as the current and peak RSS.
 */
export class UsageTracker {
  #lastTicks: number | null = null;
  #lastAtMs = 0;
  #usage: ResourceUsage = { ...EMPTY_USAGE };

  /** Folds one reading taken at `atMs` into the usage and returns it. */
  add(reading: GroupReading, atMs: number): ResourceUsage {
    let cpuMillicores = this.#usage.cpuMillicores;
    if (this.#lastTicks !== null && atMs > this.#lastAtMs) {
      const seconds = (reading.cpuTicks - this.#lastTicks) / CLOCK_TICKS_PER_SECOND;
      cpuMillicores = Math.max(0, Math.round((seconds * 1_000_000) / (atMs - this.#lastAtMs)));
    }
    this.#lastTicks = reading.cpuTicks;
    this.#lastAtMs = atMs;
    this.#usage = {
      cpuMillicores,
      memoryBytes: reading.rssBytes,
      peakMemoryBytes: Math.max(this.#usage.peakMemoryBytes, reading.rssBytes),
      processCount: reading.processCount,
    };
    return this.#usage;
  }

  /** The latest usage. */
  get usage(): ResourceUsage {
    return this.#usage;
  }
}
