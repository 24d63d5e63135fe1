import { ExecutorStep, VersionGraph, outputPathOf, silentLogger } from '@marin/executor';
import { ResourceConfig } from '@marin/fray';
import { describe, expect, it } from 'vitest';
import { defaultConsolidate } from '../consolidate/default-consolidate.js';
import { defaultNormalize } from './default-normalize.js';

const raw = new ExecutorStep({ name: 'raw/fineweb', fn: null, config: {} });

function versionOf(step: ExecutorStep): { str: string; path: string } {
  const graph = new VersionGraph({ prefix: '/tmp/marin', logger: silentLogger });
  graph.computeVersion(step, false);
  return { str: graph.versionStrs.get(step) as string, path: graph.outputPaths.get(step) as string };
}

describe('defaultNormalize()', () => {
  it("names the step normalized/<name> and versions Marin's fields, bare and the input", () => {
    const step = defaultNormalize('fineweb', outputPathOf(raw, 'sample'));
    expect(step.name).toBe('normalized/fineweb');
    const version = JSON.parse(versionOf(step).str) as { config: Record<string, unknown> };
    expect(version.config).toEqual({
      input_path: expect.anything(),
      text_field: 'text',
      id_field: 'id',
      target_partition_bytes: 268435456,
      max_whitespace_run_chars: 128,
      dedup_mode: 'exact',
      bare: false,
    });
  });

  it('changes the output path with a versioned field, not with resources or parallelism', () => {
    const base = versionOf(defaultNormalize('n', raw)).path;
    expect(versionOf(defaultNormalize('n', raw, { resources: ResourceConfig.withCpu({ cpu: 2 }), maxParallelism: 9 })).path).toBe(base);
    for (const options of [{ textField: 'content' }, { dedupMode: 'none' as const }, { maxWhitespaceRunChars: 64 }, { bare: true }]) {
      expect(versionOf(defaultNormalize('n', raw, options)).path).not.toBe(base);
    }
  });
});

describe('defaultConsolidate()', () => {
  it('versions the rules and takes attribute datasets as dependencies', () => {
    const norm = defaultNormalize('n', raw);
    const quality = new ExecutorStep({ name: 'attributes/quality', fn: null, config: {} });
    const build = (t: number) =>
      defaultConsolidate('hq', outputPathOf(norm, 'outputs/main'), [{ type: 'classify', attribute_path: quality, name: 'quality_score', lower_threshold: t }]);
    expect(build(0.5).name).toBe('filtered/hq');
    const version = JSON.parse(versionOf(build(0.5)).str) as { dependencies: unknown[] };
    expect(version.dependencies).toHaveLength(2);
    expect(versionOf(build(0.5)).path).not.toBe(versionOf(build(0.6)).path);
  });

  it('refuses an invalid filter with PIPELINE_CONFIG_INVALID', () => {
    expect(() => defaultConsolidate('x', raw, [{ type: 'classify', attribute_path: raw, name: 'q', keep_fraction: 2 }])).toThrow(
      expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }),
    );
  });
});
