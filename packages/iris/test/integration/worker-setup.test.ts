import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EnvironmentCache } from '../../src/worker/environment-cache.js';
import { buildSetupCommands } from '../../src/core/setup-commands.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-worker-setup-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(root: string, path: string, content: string): Promise<void> {
  await mkdir(join(root, path, '..'), { recursive: true });
  await writeFile(join(root, path), content);
}

const COUNT = (name: string): string =>
  `node -e "require('fs').appendFileSync(process.env.COUNTER_DIR + '/${name}', 'x')"`;

/** A workspace whose install needs no registry: one `file:` dependency with a bin. */
async function workspace(name: string, code: string, extraScripts: Record<string, string> = {}): Promise<string> {
  const root = join(dir, name);
  await write(root, 'local-dep/package.json', JSON.stringify({ name: 'local-dep', version: '1.0.0', bin: { 'local-dep': 'cli.js' } }));
  await write(root, 'local-dep/cli.js', '#!/usr/bin/env node\nconsole.log("local-dep cli")\n');
  await chmod(join(root, 'local-dep/cli.js'), 0o755);
  await write(
    root,
    'package.json',
    JSON.stringify({
      name: 'ws',
      version: '1.0.0',
      private: true,
      dependencies: { 'local-dep': 'file:./local-dep' },
      scripts: { postinstall: COUNT('installs'), ...extraScripts },
    }),
  );
  await write(root, 'src/main.js', code);
  return root;
}

function prepare(cache: EnvironmentCache, bundleTree: string, bundleId: string, workdir: string, lines: string[] = []) {
  return cache.prepareWorkdir({
    bundleId,
    bundleTree,
    setupCommands: buildSetupCommands({ bundleRoot: bundleTree }),
    workdir,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? dir, COUNTER_DIR: dir },
    onLine: (line) => lines.push(line),
  });
}

async function count(name: string): Promise<number> {
  try {
    return (await readFile(join(dir, name), 'utf8')).length;
  } catch {
    return 0;
  }
}

describe('EnvironmentCache', () => {
  it('installs dependencies once per lockfile key, so a code-only change reuses them', async () => {
    const cache = new EnvironmentCache({ cacheDir: join(dir, 'cache') });
    const v1 = await workspace('v1', 'console.log(1)');
    const v2 = await workspace('v2', 'console.log(2)');
    const first = await prepare(cache, v1, 'a'.repeat(64), join(dir, 'w1'));
    expect(first).toMatchObject({ ok: true, dependencies: 'installed', preparation: 'ran' });
    const lines: string[] = [];
    const second = await prepare(cache, v2, 'b'.repeat(64), join(dir, 'w2'), lines);
    expect(second).toMatchObject({ ok: true, dependencies: 'cached', preparation: 'ran' });
    expect(await count('installs')).toBe(1);
    expect(lines.some((l) => l.startsWith('[iris] reusing dependencies '))).toBe(true);
    // The linked tree works in the new workdir: the bin resolves to the workdir's own local-dep.
    expect(execFileSync(join(dir, 'w2', 'node_modules', '.bin', 'local-dep'), { encoding: 'utf8' })).toBe('local-dep cli\n');
    expect(await readFile(join(dir, 'w2', 'src/main.js'), 'utf8')).toBe('console.log(2)');
  });

  it('installs again when a package.json changes', async () => {
    const cache = new EnvironmentCache({ cacheDir: join(dir, 'cache') });
    await prepare(cache, await workspace('v1', 'x'), 'a'.repeat(64), join(dir, 'w1'));
    const v2 = await workspace('v2', 'x');
    await write(v2, 'local-dep/package.json', JSON.stringify({ name: 'local-dep', version: '1.0.1', bin: { 'local-dep': 'cli.js' } }));
    expect(await prepare(cache, v2, 'b'.repeat(64), join(dir, 'w2'))).toMatchObject({ ok: true, dependencies: 'installed' });
    expect(await count('installs')).toBe(2);
  });

  it('caches the per-bundle preparation by bundle id and commands', async () => {
    const cache = new EnvironmentCache({ cacheDir: join(dir, 'cache') });
    const ws = await workspace('v1', 'x', {
      'iris:setup': `${COUNT('builds')} && node -e "require('fs').mkdirSync('build',{recursive:true});require('fs').writeFileSync('build/out.txt','built')"`,
    });
    await prepare(cache, ws, 'a'.repeat(64), join(dir, 'w1'));
    expect(await prepare(cache, ws, 'a'.repeat(64), join(dir, 'w2'))).toMatchObject({ ok: true, dependencies: 'cached', preparation: 'cached' });
    expect(await count('builds')).toBe(1);
    expect(await readFile(join(dir, 'w2', 'build/out.txt'), 'utf8')).toBe('built');
  });

  it('fails the preparation on a failing command and caches nothing', async () => {
    const cache = new EnvironmentCache({ cacheDir: join(dir, 'cache') });
    const ws = await workspace('v1', 'x', { 'iris:setup': `${COUNT('attempts')} && exit 7` });
    const lines: string[] = [];
    const first = await prepare(cache, ws, 'a'.repeat(64), join(dir, 'w1'), lines);
    expect(first).toMatchObject({ ok: false, aborted: false, exitCode: 7 });
    expect((first as { message: string }).message).toContain('npm run iris:setup --if-present');
    expect(lines).toContain('$ npm run iris:setup --if-present');
    await prepare(cache, ws, 'a'.repeat(64), join(dir, 'w2'));
    expect(await count('attempts')).toBe(2);
  });

  it('lets a concurrent attempt with the same key wait instead of installing twice', async () => {
    const cache = new EnvironmentCache({ cacheDir: join(dir, 'cache') });
    const ws = await workspace('v1', 'x');
    const lines: string[] = [];
    const [a, b] = await Promise.all([
      prepare(cache, ws, 'a'.repeat(64), join(dir, 'w1'), lines),
      prepare(cache, ws, 'a'.repeat(64), join(dir, 'w2'), lines),
    ]);
    expect(a.ok && b.ok).toBe(true);
    expect(await count('installs')).toBe(1);
    expect(lines.some((l) => l.startsWith('[iris] waiting for environment '))).toBe(true);
  });

  it('stops a setup command aborted while it was still starting', async () => {
    const cache = new EnvironmentCache({ cacheDir: join(dir, 'cache'), termTimeoutMs: 200 });
    const tree = join(dir, 'plain');
    await write(tree, 'f.txt', 'x');
    const abort = new AbortController();
    const running = cache.prepareWorkdir({
      bundleId: 'd'.repeat(64),
      bundleTree: tree,
      setupCommands: [['node', '-e', 'setInterval(() => {}, 1000)']],
      workdir: join(dir, 'w1'),
      env: { PATH: process.env['PATH'] ?? '' },
      // The abort lands before the command's process exists (as a slow start under load lets it).
      onLine: (line) => {
        if (line.startsWith('$ ')) abort.abort();
      },
      signal: abort.signal,
    });
    expect(await running).toMatchObject({ ok: false, aborted: true });
  }, 30_000);

  it('stops a running setup command when aborted', async () => {
    const cache = new EnvironmentCache({ cacheDir: join(dir, 'cache'), termTimeoutMs: 200 });
    const tree = join(dir, 'plain');
    await write(tree, 'f.txt', 'x');
    const abort = new AbortController();
    const running = cache.prepareWorkdir({
      bundleId: 'c'.repeat(64),
      bundleTree: tree,
      setupCommands: [['node', '-e', 'setInterval(() => {}, 1000)']],
      workdir: join(dir, 'w1'),
      env: { PATH: process.env['PATH'] ?? '' },
      onLine: (line) => {
        if (line.startsWith('$ ')) setTimeout(() => abort.abort(), 300);
      },
      signal: abort.signal,
    });
    expect(await running).toMatchObject({ ok: false, aborted: true });
    await expect(stat(join(dir, 'cache', 'envs'))).resolves.toBeDefined();
  });
});
