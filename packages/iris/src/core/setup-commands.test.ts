import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildSetupCommands, isDependencyStep } from './setup-commands.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-setup-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const pkg = (body: object): Promise<void> => writeFile(join(dir, 'package.json'), JSON.stringify(body));

describe('buildSetupCommands()', () => {
  it('installs, then runs the iris:setup hook, for a bundle with package.json', async () => {
    await pkg({ name: 'ws' });
    expect(buildSetupCommands({ bundleRoot: dir })).toEqual([
      ['npm', 'install', '--no-audit', '--no-fund'],
      ['npm', 'run', 'iris:setup', '--if-present'],
    ]);
  });

  it('turns dependency groups and npm packages into one npm install --no-save step', async () => {
    await pkg({ name: 'ws', marin: { dependencyGroups: { eval: ['lodash@^4', 'left-pad@1'], tpu: ['jax-shim@0.1'] } } });
    expect(buildSetupCommands({ bundleRoot: dir, dependencyGroups: ['eval', 'tpu'], npmPackages: ['extra@2', 'lodash@^4'] })[1]).toEqual([
      'npm',
      'install',
      '--no-save',
      '--no-audit',
      '--no-fund',
      'lodash@^4',
      'left-pad@1',
      'jax-shim@0.1',
      'extra@2',
    ]);
  });

  it('rejects an unknown explicit dependency group', async () => {
    await pkg({ name: 'ws', marin: { dependencyGroups: { eval: ['x@1'] } } });
    expect(() => buildSetupCommands({ bundleRoot: dir, dependencyGroups: ['gpu'] })).toThrow(
      expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT', details: { group: 'gpu', known: ['eval'] } }),
    );
  });

  it('has no npm steps for a bundle without package.json, except requested packages', () => {
    expect(buildSetupCommands({ bundleRoot: dir })).toEqual([]);
    expect(buildSetupCommands({ bundleRoot: dir, npmPackages: ['x@1'] })).toEqual([
      ['npm', 'install', '--no-save', '--no-audit', '--no-fund', 'x@1'],
    ]);
  });

  it('rejects a malformed dependencyGroups declaration', async () => {
    await pkg({ marin: { dependencyGroups: { eval: 'not-a-list' } } });
    expect(() => buildSetupCommands({ bundleRoot: dir, dependencyGroups: ['eval'] })).toThrow(
      expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }),
    );
  });
});

describe('isDependencyStep()', () => {
  it('recognises npm install variants only', () => {
    expect(isDependencyStep(['npm', 'install', '--no-save', 'x'])).toBe(true);
    expect(isDependencyStep(['npm', 'ci'])).toBe(true);
    expect(isDependencyStep(['npm', 'run', 'iris:setup'])).toBe(false);
    expect(isDependencyStep(['node', 'install'])).toBe(false);
  });
});
