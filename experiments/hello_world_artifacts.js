// hello_world as ArtifactSteps, Marin's current execution model: each artifact lives at
// {prefix}/{name}/{version} with a .artifact.json record (fingerprint, config, result, provenance), so Python
// Marin (marin-core >= 0.2.227) resolves these artifacts with marin.execution.lazy.resolve, and the reverse.
//
//   node --conditions=@marin/source --import tsx experiments/hello_world_artifacts.js --version 2026.11.25          # plan
//   node --conditions=@marin/source --import tsx experiments/hello_world_artifacts.js --version 2026.11.25 --run    # build
//   ... --prefix /tmp/my-prefix   ... --override hello_world/stats=2026.11.26   ... --version dev (rebuilds every run)
//
// Neither step gives a version: both defer to --version / --override. Values pulled from the context
// (ctx.outputPath, ctx.artifactPath(data)) never enter the fingerprint; the literals (n) do.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ArtifactStep, artifactMain, defineArtifactType, resolveVersion } from '@marin/executor';

/** The stats value artifact; the result type name is the Python class Marin loads it as. */
export const HelloStats = defineArtifactType('hello_world_artifacts.HelloStats', z.object({ sum: z.number(), min: z.number(), max: z.number() }));

/** Builds the two-artifact graph (inside artifactMain's version policy, so versions resolve from the flags). */
export function build() {
  const data = new ArtifactStep({
    name: 'hello_world/data',
    version: resolveVersion('hello_world/data'),
    buildConfig: (ctx) => ({ n: 100, output_path: ctx.outputPath }),
    /** @param {{ n: number, output_path: string }} config */
    run: async (config) => {
      await mkdir(config.output_path, { recursive: true });
      const numbers = Array.from({ length: config.n }, (_, i) => i);
      await writeFile(join(config.output_path, 'numbers.json'), `[${numbers.join(', ')}]`);
    },
  });
  const stats = new ArtifactStep({
    name: 'hello_world/stats',
    version: resolveVersion('hello_world/stats'),
    artifactType: HelloStats,
    deps: [data],
    buildConfig: (ctx) => ({ input_path: ctx.artifactPath(data) }),
    /** @param {{ input_path: string }} config */
    run: async (config) => {
      /** @type {number[]} */
      const numbers = JSON.parse(await readFile(join(config.input_path, 'numbers.json'), 'utf8'));
      return { sum: numbers.reduce((a, b) => a + b, 0), min: Math.min(...numbers), max: Math.max(...numbers) };
    },
  });
  return [stats];
}

await artifactMain({ build, exit: (code) => process.exit(code) });
