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
});
