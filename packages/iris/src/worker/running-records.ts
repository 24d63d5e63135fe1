import { mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pollUntil, terminateProcessGroup } from '@marin/rigging';
import { z } from 'zod';
import { processStartTime } from './resource-usage.js';

/** What the worker remembers on disk about a running attempt, so a successor can clean up after a crash. */
export interface RunningRecord {
  uid: string;
  pid: number;
  pgid: number;
  /** `/proc` start time of the leader; guards against a recycled pid. */
  startTime: number;
  startedAtMs: number;
  /** The task's supervisor and its `/proc` start time. */
  supervisorPid?: number | undefined;
  supervisorStartTime?: number | undefined;
}

const RecordSchema = z.object({
  uid: z.string(),
  workerId: z.string(),
  pid: z.number().int().positive(),
  pgid: z.number().int().positive(),
  startTime: z.number(),
  startedAtMs: z.number(),
  supervisorPid: z.number().int().positive().optional(),
  supervisorStartTime: z.number().optional(),
});

/**
 * `<cacheDir>/running/<uid>.json` files, one per live attempt process of this worker id. Records of
 * other worker ids sharing the cache dir are left alone.
 */
export class RunningRecords {
  readonly #dir: string;
  readonly #workerId: string;
  /** Set once the records' directory exists (it is never removed while the worker runs). */
  #dirMade = false;

  constructor(options: { cacheDir: string; workerId: string }) {
    this.#dir = join(options.cacheDir, 'running');
    this.#workerId = options.workerId;
  }

  /**
   * Records a started attempt process. Synchronous, like {@link remove}: one small local file per
   * task start, for which a thread-pool round trip (open, write, close) costs several times the write.
   */
  add(record: RunningRecord): void {
    if (!this.#dirMade) {
      mkdirSync(this.#dir, { recursive: true });
      this.#dirMade = true;
    }
    writeFileSync(join(this.#dir, `${record.uid}.json`), JSON.stringify({ ...record, workerId: this.#workerId }));
  }

  /** Forgets an attempt whose process group is gone. */
  remove(uid: string): void {
    try {
      unlinkSync(join(this.#dir, `${uid}.json`));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }

  /**
   * Kills the process groups a crashed predecessor with this worker id left behind (those whose
   * leader pid still has the recorded start time) and removes their records.
   * @returns the uids whose groups were still alive and got killed
   */
  async killLeftovers(termTimeoutMs: number, supervisorWaitMs = 10_000): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.#dir);
    } catch {
      return [];
    }
    const killed: string[] = [];
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const path = join(this.#dir, name);
      let record;
      try {
        record = RecordSchema.parse(JSON.parse(await readFile(path, 'utf8')));
      } catch {
        await rm(path, { force: true }); // unreadable: nothing we could safely kill
        continue;
      }
      if (record.workerId !== this.#workerId) continue;
      const { supervisorPid, supervisorStartTime } = record;
      if (supervisorPid !== undefined && processStartTime(supervisorPid) === supervisorStartTime) {
        // The supervisor saw its daemon die, killed the task and is telling the controller the real
        // outcome; registering before it is done would let the controller fail the attempt first.
        await pollUntil(() => processStartTime(supervisorPid) !== supervisorStartTime, { timeoutMs: supervisorWaitMs });
      }
      if (processStartTime(record.pid) === record.startTime) {
        await terminateProcessGroup(record.pgid, { graceMs: termTimeoutMs });
        killed.push(record.uid);
      }
      await rm(path, { force: true });
    }
    return killed;
  }
}
