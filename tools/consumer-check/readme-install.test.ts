// The root README's "Using the packages in your own project" section says what the consumer check
// does: the tarballs it installs and the controller's optional native peers with their ranges. And no
// npm command in the repo starts with a warning about the repo's own npm configuration.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const SECTION = README.slice(README.indexOf('## Using the packages in your own project'), README.indexOf('\n## ', README.indexOf('## Using the packages in your own project') + 3));

function manifest(path: string): { name: string; version: string; peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }> } {
  return JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as ReturnType<typeof manifest>;
}

describe('README: using the packages in your own project', () => {
  it('exists', () => {
    expect(SECTION.startsWith('## Using the packages in your own project')).toBe(true);
  });

  it("names each of the controller's optional native peers with @marin/iris's own range", () => {
    const iris = manifest('packages/iris/package.json');
    const peers = Object.entries(iris.peerDependencies ?? {}).filter(([name]) => iris.peerDependenciesMeta?.[name]?.optional === true);
    expect(peers.map(([name]) => name).sort()).toEqual(['better-sqlite3', 'zstd-napi']);
    for (const [name, range] of peers) {
      expect(SECTION).toContain(`| \`${name}\` | \`${range}\` |`);
      expect(SECTION).toContain(`${name}@${range}`);
    }
  });

  it('installs the tarballs npm pack writes for the current versions, each with the siblings it pulls', () => {
    for (const pkg of ['rigging', 'iris', 'fray', 'executor']) {
      const { name, version } = manifest(`packages/${pkg}/package.json`);
      expect(SECTION).toContain(`${name.replace('@', '').replace('/', '-')}-${version}.tgz`);
    }
  });
});

describe('npm in the repo', () => {
  it('prints no warning about the repo configuration (.npmrc, package.json)', () => {
    const r = spawnSync('npm', ['pkg', 'get', 'name'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter((l) => /^npm warn/i.test(l) && !/user config "nodedir"/.test(l))).toEqual([]);
  });

  it('keeps .npmrc to settings npm knows', () => {
    const npmrc = readFileSync(join(ROOT, '.npmrc'), 'utf8');
    expect(npmrc).not.toMatch(/build-from-source/);
  });
});
