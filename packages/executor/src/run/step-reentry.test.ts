import { describe, expect, it } from 'vitest';
import { STEP_CONFIG_FILE, buildStepReentry } from './step-reentry.js';

describe('buildStepReentry()', () => {
  const workspace = '/repo';

  it('re-runs the entry script with the same node flags and the worker-mode flags', () => {
    const ep = buildStepReentry({
      workspace,
      entryScript: '/repo/experiments/tiny/main.ts',
      execArgv: ['--conditions=@marin/source', '--import', 'file:///repo/node_modules/tsx/dist/loader.mjs', '--require=/repo/x.cjs', '--import', 'tsx'],
      userArgs: ['--dry-run', 'false', '--prefix', '/old', '--run-step=/x', '--max-concurrent', '2'],
      prefix: 'gs://bucket/prefix',
      outputPath: 'gs://bucket/prefix/tokenized/fineweb-ab12cd',
      stepConfigJson: '{"a": 1.0}',
    });
    expect(ep.command).toBe('node');
    expect(ep.args).toEqual([
      '--conditions=@marin/source',
      '--import',
      './node_modules/tsx/dist/loader.mjs',
      '--require=./x.cjs',
      '--import',
      'tsx',
      './experiments/tiny/main.ts',
      '--dry-run',
      'false',
      '--max-concurrent',
      '2',
      '--prefix',
      'gs://bucket/prefix',
      '--run-step',
      'gs://bucket/prefix/tokenized/fineweb-ab12cd',
      '--step-config-file',
      STEP_CONFIG_FILE,
    ]);
    expect(ep.files).toEqual({ [STEP_CONFIG_FILE]: '{"a": 1.0}' });
  });

  it('leaves paths outside the workspace absolute', () => {
    const ep = buildStepReentry({ workspace, entryScript: '/elsewhere/main.mjs', execArgv: ['--import=/opt/loader.mjs'], userArgs: [], prefix: 'p', outputPath: 'o', stepConfigJson: '{}' });
    expect(ep.args.slice(0, 2)).toEqual(['--import=/opt/loader.mjs', '/elsewhere/main.mjs']);
  });
});
