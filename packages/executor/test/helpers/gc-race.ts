import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Executor } from '@marin/executor';
import { mapLimit, readText, writeBytes, writeText } from '@marin/rigging';
import { expect } from 'vitest';
import { raceInput, raceUse } from '../fixtures/gc-race-steps.js';
import { captureLogger } from './capture-logger.js';
import { startFixture } from './fixture-process.js';
import type { FixtureProcess } from './fixture-process.js';
import { startMarin } from './marin-cli.js';

/** Options of {@link runGcRace}. */
export interface GcRaceOptions {
  /** A fresh, empty prefix for each round. */
  prefix(round: number): Promise<string>;
  /** A local directory for the go files. */
  scratch: string;
  rounds: number;
  /** Stale outputs no executor uses (each 4 KiB, so gc deletes them before the small inputs). */
  fillers: number;
  /** Whether a path exists on the prefix's backend. */
  exists(path: string): Promise<boolean>;
}

/**
 * Short leases for every process of the race (gc's wait is 2 s + 0.3 s), yet long enough that a
 * heartbeat on a loaded machine and emulator does not miss a whole timeout.
 */
const LEASE_ENV = { MARIN_LEASE_TIMEOUT_S: '2', MARIN_LEASE_HEARTBEAT_S: '0.3', MARIN_LEASE_POLL_S: '0.1' };
/** Inputs of the superseded experiment; every executor reuses four of them. */
const INPUTS = 6;
/** When each executor is released, after gc has read the experiment files (ms): before, during and after its wait. */
const RELEASE_MS = [0, 1000, 2400, 4000];
const USE_SLEEP_MS = 1500;

/**
 * The race of `marin gc --delete` against executors reusing its candidates, `rounds` times on fresh
 * prefixes. Each round: a superseded experiment built the inputs `gcrace/in` 0..5 (and its own
 * consumer), plus `fillers` stale outputs nobody uses; then a real `marin gc --delete --since`
 * process starts and, once it has read the experiment files, four real executor processes are
 * released at staggered instants, each reusing four of the inputs in a step that holds them for
 * 1.5 s before reading them. Asserts: gc and every executor succeed, every output an executor used
 * exists afterwards with SUCCESS, and every filler (and the superseded consumer) is gone.
 */
export async function runGcRace(opts: GcRaceOptions): Promise<void> {
  for (let round = 0; round < opts.rounds; round++) {
    const prefix = await opts.prefix(round);
    const old = raceUse('old', Array.from({ length: INPUTS }, (_, i) => i), 0);
    const builder = new Executor({ prefix, logger: captureLogger(), progressStream: { write: () => true } });
    await builder.run([old], { progress: 'plain' });
    const fillers = Array.from({ length: opts.fillers }, (_, i) => `${prefix}/gcrace/filler-${String(i).padStart(6, '0')}`);
    await mapLimit(fillers, 16, async (f) => {
      await writeText(`${f}/.executor_info`, '{}');
      await writeBytes(`${f}/data.bin`, Buffer.alloc(4096, 1));
      await writeText(`${f}/.executor_status`, 'SUCCESS');
    });
    await sleep(50);
    const since = new Date();
    await sleep(50);

    const executors: { proc: FixtureProcess; go: string; tag: string; indices: number[] }[] = RELEASE_MS.map((_, j) => {
      const tag = `r${round}-e${j}`;
      const indices = [0, 1, 2, 3].map((k) => (j + k + round) % INPUTS);
      const go = join(opts.scratch, `go-${tag}`);
      const proc = startFixture('gc-race.ts', {
        args: ['--prefix', prefix],
        env: { ...LEASE_ENV, GO_FILE: go, TAG: tag, REUSE: indices.join(','), USE_SLEEP_MS: String(USE_SLEEP_MS) },
      });
      return { proc, go, tag, indices };
    });
    try {
      await Promise.all(executors.map((e) => e.proc.waitForStdout('READY')));
      const gc = startMarin(['gc', '--prefix', prefix, '--since', since.toISOString(), '--delete', '--json', '--progress', 'bar'], LEASE_ENV);
      // The walk starts after the experiment files were read: from here on, a new experiment is one gc has not seen.
      await gc.waitForStderr('walking');
      const started = Date.now();
      const jitter = (round * 137) % 400;
      await Promise.all(
        executors.map(async (e, j) => {
          await sleep(Math.max(0, started + RELEASE_MS[j]! + jitter - Date.now()));
          await writeFile(e.go, '');
        }),
      );
      const [gcDone, ...exits] = await Promise.all([gc.exited, ...executors.map((e) => e.proc.exited)]);
      expect(gcDone.code, `round ${round}: marin gc\n${gcDone.stderr}`).toBe(0);
      exits.forEach((x, j) => expect(x.code, `round ${round}: executor ${executors[j]!.tag}\n${executors[j]!.proc.stderr()}`).toBe(0));

      // Nothing any executor used is gone.
      const probe = new Executor({ prefix, logger: captureLogger() });
      for (const e of executors) {
        const use = raceUse(e.tag, e.indices, 0);
        probe.computeVersion(use);
        const used = [use, ...e.indices.map(raceInput)].map((s) => probe.outputPaths.get(s)!);
        for (const out of used) {
          expect(await readText(`${out}/.executor_status`), `round ${round}: ${out}`).toBe('SUCCESS');
          expect(await opts.exists(`${out}/data.bin`), `round ${round}: ${out}/data.bin`).toBe(true);
        }
      }
      // The truly stale outputs are gone.
      probe.computeVersion(old);
      const stale = [...fillers, probe.outputPaths.get(old)!];
      const left = (await mapLimit(stale, 16, async (p) => ((await opts.exists(`${p}/data.bin`)) ? p : null))).filter((p) => p !== null);
      const report = JSON.parse(gcDone.stdout) as { deleted: string[]; skipped: { path: string; reason: string }[] };
      expect(left, `round ${round}: stale outputs left; gc skipped ${JSON.stringify(report.skipped)}`).toEqual([]);
      expect(report.deleted.length, `round ${round}`).toBeGreaterThanOrEqual(stale.length);
    } finally {
      await Promise.all(executors.map((e) => e.proc.close()));
    }
  }
}
