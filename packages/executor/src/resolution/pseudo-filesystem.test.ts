import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExecutorStep } from '../dag/executor-step.js';
import { Executor } from '../executor.js';
import { silentLogger } from '../logger.js';
import { assertStorablePath, pseudoFilesystemOf } from './pseudo-filesystem.js';

describe('pseudo filesystem prefixes', () => {
  it('names procfs and sysfs for paths under /proc and /sys (existing or not), and nothing for a real directory', async () => {
    expect(await pseudoFilesystemOf('/proc/marin/deeper')).toBe('procfs');
    expect(await pseudoFilesystemOf('/sys/marin')).toBe('sysfs');
    expect(await pseudoFilesystemOf(tmpdir())).toBeNull();
    await expect(assertStorablePath('prefix', 'gs://bucket/x')).resolves.toBeUndefined();
    await expect(assertStorablePath('prefix', 'file:///proc/x')).rejects.toMatchObject({ code: 'EXECUTOR_INVALID_ARGUMENT', details: { fsType: 'procfs' } });
  });

  it('refuses a run under /proc at once instead of spinning in mkdir', async () => {
    const step = new ExecutorStep({ name: 'p/a', config: {}, fn: () => {} });
    const run = new Executor({ prefix: '/proc/marin', logger: silentLogger }).run([step], { progress: 'plain' });
    await expect(run).rejects.toMatchObject({ code: 'EXECUTOR_INVALID_ARGUMENT', details: { reason: 'pseudo-filesystem', fsType: 'procfs' } });
  });

  it('refuses an experiment folder under /sys even with a real prefix', async () => {
    const prefix = await mkdtemp(join(tmpdir(), 'pseudo-'));
    try {
      const step = new ExecutorStep({ name: 'p/a', config: {}, fn: () => {} });
      const run = new Executor({ prefix, executorInfoBasePath: '/sys/marin', logger: silentLogger }).run([step], { progress: 'plain' });
      await expect(run).rejects.toMatchObject({ details: { fsType: 'sysfs' } });
    } finally {
      await rm(prefix, { recursive: true, force: true });
    }
  });
});
