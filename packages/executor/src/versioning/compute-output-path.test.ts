import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExecutorStep } from '../dag/executor-step.js';
import { versioned } from '../dag/versioned-value.js';
import { silentLogger } from '../logger.js';
import { VersionGraph } from './version-graph.js';
import { computeOutputPath } from './compute-output-path.js';
import { absolutePrefix, makePrefixAbsolute } from '../resolution/make-prefix-absolute.js';

describe('computeOutputPath()', () => {
  it('returns <prefix>/my-step-<hash6> and performs no file I/O', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cop-'));
    try {
      const prefix = join(dir, 'prefix');
      const path = await computeOutputPath('my-step', { n: versioned(3) }, { prefix });
      expect(path).toMatch(new RegExp(`^${prefix}/my-step-[0-9a-f]{6}$`));
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('agrees with the VersionGraph the executor uses, upstream steps included', async () => {
    const up = new ExecutorStep({ name: 'up', fn: null, config: { k: versioned('v') } });
    const config = { input: up.cd('data'), n: versioned(1) };
    const graph = new VersionGraph({ prefix: 'gs://b', logger: silentLogger });
    const step = new ExecutorStep({ name: 'down', fn: () => 1, config });
    graph.computeVersion(step, false);
    expect(await computeOutputPath('down', config, { prefix: 'gs://b' })).toBe(graph.outputPaths.get(step));
    expect(await computeOutputPath('hello_world/data', {}, { prefix: 'gs://b' })).toBe('gs://b/hello_world/data-d50b06');
  });

  it('honours an override and makes a relative local prefix absolute', async () => {
    expect(await computeOutputPath('s', {}, { prefix: 'gs://b', overrideOutputPath: 'pinned' })).toBe('gs://b/pinned');
    expect(await computeOutputPath('hello_world/data', {}, { prefix: 'rel' })).toBe(
      join(process.cwd(), 'rel', 'hello_world/data-d50b06'),
    );
  });

  it('defaults the prefix to marinPrefix() (MARIN_PREFIX)', async () => {
    const saved = process.env['MARIN_PREFIX'];
    process.env['MARIN_PREFIX'] = 'gs://from-env/';
    try {
      expect(await computeOutputPath('hello_world/data', {})).toBe('gs://from-env/hello_world/data-d50b06');
    } finally {
      if (saved === undefined) delete process.env['MARIN_PREFIX'];
      else process.env['MARIN_PREFIX'] = saved;
    }
  });

  it('rejects a bad name or prefix with EXECUTOR_INVALID_ARGUMENT', async () => {
    await expect(computeOutputPath('s', {}, { prefix: '' })).rejects.toMatchObject({ code: 'EXECUTOR_INVALID_ARGUMENT' });
    await expect(computeOutputPath('', {}, { prefix: '/p' })).rejects.toMatchObject({ code: 'EXECUTOR_INVALID_ARGUMENT' });
  });
});

describe('makePrefixAbsolute() and absolutePrefix()', () => {
  it('joins relative paths and keeps absolute paths and URLs', () => {
    expect(makePrefixAbsolute('gs://b', 'x/y')).toBe('gs://b/x/y');
    expect(makePrefixAbsolute('gs://b', '/abs')).toBe('/abs');
    expect(makePrefixAbsolute('/p', 'mirror://k')).toBe('mirror://k');
    expect(absolutePrefix('gs://b')).toBe('gs://b');
    expect(absolutePrefix('/tmp/marin')).toBe('/tmp/marin');
    expect(absolutePrefix('out')).toBe(join(process.cwd(), 'out'));
  });
});
