import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { filesystemFor, prefixJoin } from '@marin/rigging';
import { z } from 'zod';
import { ArtifactStep } from '../../src/artifact/artifact-step.js';
import { defineArtifactType } from '../../src/artifact/artifact-type.js';

/** The Python side's `interop_artifacts.Total`, by the same result type name. */
export const Total = defineArtifactType('interop_artifacts.Total', z.object({ total: z.number().int(), count: z.number().int() }));

/** Options of {@link interopGraph}. */
export interface InteropGraphOptions {
  /** `scale` in interop/numbers' config (1.5 matches Python's default). */
  scale?: number;
  expectedFingerprint?: string;
  /** interop/numbers holds its lease until this promise settles. */
  hold?: Promise<void>;
  /** Called once interop/numbers is running (inside its lease). */
  onHolding?: () => void;
  /** The local directory of `runs.log`. @default prefix (a local prefix) */
  logDir?: string;
}

/**
 * The interop graph in TypeScript, mirroring test/python/interop_artifacts.py: same names, versions, configs,
 * result type, so fingerprints agree and either language resolves the other's records. Each body appends
 * `ts <step>` to `<logDir>/runs.log`. Data goes through rigging's filesystems, so the prefix may be `gs://`.
 */
export function interopGraph(prefix: string, version: string, opts: InteropGraphOptions = {}) {
  const log = (what: string): Promise<void> => appendFile(join(opts.logDir ?? prefix, 'runs.log'), `ts ${what}\n`);
  const numbers = new ArtifactStep({
    name: 'interop/numbers',
    version,
    buildConfig: (ctx) => ({ n: 5, scale: opts.scale ?? 1.5, out: ctx.outputPath }),
    expectedFingerprint: opts.expectedFingerprint ?? null,
    run: async (c: { n: number; out: string }) => {
      await log('numbers');
      const url = prefixJoin(c.out, 'numbers.json');
      await filesystemFor(url).writeText(url, JSON.stringify([...Array(c.n).keys()]));
      opts.onHolding?.();
      await opts.hold;
    },
  });
  const total = new ArtifactStep({
    name: 'interop/total',
    version,
    artifactType: Total,
    deps: [numbers],
    buildConfig: (ctx) => ({ input: ctx.artifactPath(numbers), label: 'sum' }),
    run: async (c: { input: string }) => {
      await log('total');
      const url = prefixJoin(c.input, 'numbers.json');
      const xs = JSON.parse(await filesystemFor(url).readText(url)) as number[];
      return { total: xs.reduce((a, b) => a + b, 0), count: xs.length };
    },
  });
  return { numbers, total };
}

/** The lines of `<prefix>/runs.log` (who built what), empty when nothing ran. */
export async function runsLog(prefix: string): Promise<string[]> {
  try {
    return (await readFile(join(prefix, 'runs.log'), 'utf8')).split('\n').filter((l) => l !== '');
  } catch {
    return [];
  }
}
