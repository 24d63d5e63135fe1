import { ExecutorStep, VersionGraph, outputPathOf, silentLogger } from '@marin/executor';
import { ResourceConfig } from '@marin/fray';
import { describe, expect, it } from 'vitest';
import { defaultTransform } from './default-transform.js';

const raw = new ExecutorStep({ name: 'raw/quickstart', fn: null, config: {} });

function versionOf(step: ExecutorStep): { str: string; path: string } {
  const graph = new VersionGraph({ prefix: '/tmp/marin', logger: silentLogger });
  graph.computeVersion(step, false);
  return { str: graph.versionStrs.get(step) as string, path: graph.outputPaths.get(step) as string };
}

describe('defaultTransform()', () => {
  it('names the step documents/<name> and versions extract_method, config and the input', () => {
    const step = defaultTransform('quickstart-train', outputPathOf(raw, 'train'));
    expect(step.name).toBe('documents/quickstart-train');
    const version = JSON.parse(versionOf(step).str) as { config: Record<string, unknown>; dependencies: unknown[] };
    expect(Object.keys(version.config).sort()).toEqual(['config', 'extract_method', 'input_path']);
    expect(version.config['extract_method']).toBe('readability');
    expect(version.config['config']).toMatchObject({ prepend_title: true, heading_style: 'ATX', bullet: '*' });
    expect(version.dependencies).toHaveLength(1);
  });

  it('keeps the output path when only resources, parallelism or shards per job change', () => {
    const base = versionOf(defaultTransform('t', raw)).path;
    const scaled = defaultTransform('t', raw, { resources: ResourceConfig.withCpu({ cpu: 2 }), maxParallelism: 16, shardsPerJob: 4 });
    expect(versionOf(scaled).path).toBe(base);
    expect(scaled.config.resources).toMatchObject({ device: { kind: 'cpu' } });
  });

  it('changes the output path when the Markdown config changes', () => {
    expect(versionOf(defaultTransform('t', raw, { config: { include_links: false } })).path).not.toBe(versionOf(defaultTransform('t', raw)).path);
  });

  it('hashes a path input by the path itself', () => {
    const a = versionOf(defaultTransform('t', 'raw/a')).path;
    expect(versionOf(defaultTransform('t', 'raw/b')).path).not.toBe(a);
    expect(a).toMatch(/^\/tmp\/marin\/documents\/t-[0-9a-f]{6}$/);
  });
});
