import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dependencyGroupPackages, readDependencyGroups, resolveDependencyGroups } from './dependency-groups.js';

const DECLARED = { gpu: ['jax-cuda@1'], html: ['linkedom@0.18.15', 'turndown@7.2.5'], tokenize: ['js-tiktoken@1.0.21', 'turndown@7.2.5'] };

describe('resolveDependencyGroups()', () => {
  it('derives ["gpu"] for GPU, ["tpu"] for TPU and [] for CPU, dropping undeclared derived names', () => {
    expect(resolveDependencyGroups(undefined, { kind: 'gpu', variant: 'H100', count: 1 }, DECLARED)).toEqual(['gpu']);
    expect(resolveDependencyGroups(null, { kind: 'tpu', variant: 'v5litepod-16' }, DECLARED)).toEqual([]);
    expect(resolveDependencyGroups(null, { kind: 'tpu', variant: 'v5litepod-16' }, { tpu: ['x@1'] })).toEqual(['tpu']);
    expect(resolveDependencyGroups(undefined, { kind: 'cpu' }, DECLARED)).toEqual([]);
  });

  it('uses an explicit list as given; [] means none', () => {
    expect(resolveDependencyGroups([], { kind: 'gpu', variant: 'H100', count: 1 }, DECLARED)).toEqual([]);
    expect(resolveDependencyGroups(['html', 'html'], { kind: 'cpu' }, DECLARED)).toEqual(['html']);
  });

  it('throws FRAY_INVALID_ARGUMENT for an explicitly requested unknown group', () => {
    expect(() => resolveDependencyGroups(['html', 'nope'], { kind: 'cpu' }, DECLARED)).toThrow(
      expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT', details: expect.objectContaining({ unknown: ['nope'] }) }),
    );
  });

  it('lists the packages of the groups once each', () => {
    expect(dependencyGroupPackages(['html', 'tokenize'], DECLARED)).toEqual(['linkedom@0.18.15', 'turndown@7.2.5', 'js-tiktoken@1.0.21']);
  });
});

describe('readDependencyGroups()', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fray-groups-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads marin.dependencyGroups from the workspace package.json', async () => {
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'x', marin: { dependencyGroups: DECLARED } }));
    expect(readDependencyGroups(dir)).toEqual(DECLARED);
  });

  it('treats a missing file or section as no groups', async () => {
    expect(readDependencyGroups(dir)).toEqual({});
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'x' }));
    expect(readDependencyGroups(dir)).toEqual({});
  });

  it('rejects a malformed section', async () => {
    await writeFile(join(dir, 'package.json'), JSON.stringify({ marin: { dependencyGroups: { gpu: 'jax' } } }));
    expect(() => readDependencyGroups(dir)).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
    await writeFile(join(dir, 'package.json'), '{ nope');
    expect(() => readDependencyGroups(dir)).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
  });
});
