import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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
}

/**
 * The interop graph in TypeScript, mirroring test/python/interop_artifacts.py: same names, versions, configs,
 * result type, so fingerprints agree and either language resolves the other's records. Each body appends
 * `ts <step>` to `<prefix>/runs.log`.
 */
export function interopGraph(prefix: string, version: string, opts: InteropGraphOptions = {}) {
  const log = (what: string): Promise<void> => appendFile(join(prefix, 'runs.log'), `ts ${what}\n`);
  const numbers = new ArtifactStep({
    name: 'interop/numbers',
    version,
    buildConfig: (ctx) => ({ n: 5, scale: opts.scale ?? 1.5, out: ctx.outputPath }),
    expectedFingerprint: opts.expectedFingerprint ?? null,
    run: async (c: { n: number; out: string }) => {
      await log('numbers');
      await mkdir(c.out, { recursive: true });
      await writeFile(join(c.out, 'numbers.json'), JSON.stringify([...Array(c.n).keys()]));
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
      const xs = JSON.parse(await readFile(join(c.input, 'numbers.json'), 'utf8')) as number[];
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
