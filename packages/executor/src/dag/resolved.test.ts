import { float } from '@marin/rigging';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { VersionGraph } from '../versioning/version-graph.js';
import { ExecutorStep } from './executor-step.js';
import { mirrored } from './mirrored-value.js';
import { thisOutputPath } from './output-name.js';
import type { Resolved } from './resolved.js';
import { versioned } from './versioned-value.js';

describe('Resolved<C>', () => {
  it('types what a step function receives, matching the resolved config', async () => {
    const data = new ExecutorStep({ name: 'data', fn: null, config: {} });
    const seen: unknown[] = [];
    const stats = new ExecutorStep({
      name: 'stats',
      config: {
        input_path: data,
        sub: data.cd('numbers.json'),
        out: thisOutputPath(),
        lr: versioned(float(1)),
        tags: versioned(['a', 'b']),
        mirror: mirrored(versioned('docs/x')),
        nested: { n: 3, when: new Date(0) },
      },
      fn: (config) => {
        expectTypeOf(config.input_path).toEqualTypeOf<string>();
        expectTypeOf(config.sub).toEqualTypeOf<string>();
        expectTypeOf(config.out).toEqualTypeOf<string>();
        expectTypeOf(config.lr).toEqualTypeOf<number>();
        expectTypeOf(config.tags).toEqualTypeOf<string[]>();
        expectTypeOf(config.mirror).toEqualTypeOf<string>();
        expectTypeOf(config.nested.when).toEqualTypeOf<Date>();
        seen.push(config);
      },
    });
    const graph = new VersionGraph({ prefix: '/p', logger: silentLogger });
    graph.computeVersion(stats, false);
    const resolved = graph.configs.get(stats) as Resolved<typeof stats.config>;
    const fn = stats.fn;
    if (typeof fn !== 'function') throw new Error('stats.fn is a plain function');
    await fn(resolved, { name: stats.name, outputPath: graph.outputPaths.get(stats) as string, signal: new AbortController().signal });
    expect(seen).toEqual([
      {
        input_path: '/p/data-0330fe',
        sub: '/p/data-0330fe/numbers.json',
        out: graph.outputPaths.get(stats),
        lr: 1,
        tags: ['a', 'b'],
        mirror: 'mirror://docs/x',
        nested: { n: 3, when: new Date(0) },
      },
    ]);
  });

  it('lets a step function annotate its config parameter with the resolved type', () => {
    const data = new ExecutorStep({ name: 'data', fn: null, config: {} });
    const stats = new ExecutorStep({
      name: 'stats',
      config: { input_path: data, n: versioned(float(2)), tags: versioned(['a']), out: thisOutputPath() },
      fn: (cfg: { input_path: string; n: number; tags: string[]; out: string }) => cfg.input_path.length + cfg.n,
    });
    expectTypeOf(stats.config.input_path).toEqualTypeOf<ExecutorStep<{}>>();
    expectTypeOf<Resolved<typeof stats.config>>().toEqualTypeOf<{ input_path: string; n: number; tags: string[]; out: string }>();
    // The annotation is checked against the resolved config, not inferred from: a wrong one fails.
    new ExecutorStep({
      name: 'wrong',
      config: { input_path: data },
      // @ts-expect-error input_path resolves to a string
      fn: (cfg: { input_path: number }) => cfg.input_path,
    });
    expect(stats.name).toBe('stats');
  });
});
