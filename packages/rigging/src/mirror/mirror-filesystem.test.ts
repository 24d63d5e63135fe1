import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { filesystemContract } from '../../test/contracts/filesystem.contract.js';
import { mirrorContract } from '../../test/contracts/mirror.contract.js';
import { parseDataConfig, withDataConfig } from '../config/data-config.js';
import { filesystemFor } from '../fs/registry.js';
import { createMirrorFilesystem, mirrorRelativeKey, registerMirrorFilesystem, resolveMirrorUrl, setDefaultMirrorFilesystem } from './mirror-filesystem.js';

const execFileAsync = promisify(execFile);

// What the package's entry point does when it loads (this file imports the module, not the entry point).
registerMirrorFilesystem();

mirrorContract('local directories as regional buckets', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'rigging-mirror-'));
  return {
    local: join(dir, 'marin-us-central1'),
    remotes: [join(dir, 'marin-us-east1'), join(dir, 'marin-eu-west4')] as const,
    [Symbol.asyncDispose]: () => rm(dir, { recursive: true, force: true }),
  };
});

let n = 0;
mirrorContract('memory prefixes', async () => {
  n++;
  return { local: `memory://m${n}-local`, remotes: [`memory://m${n}-r1`, `memory://m${n}-r2`] as const, [Symbol.asyncDispose]: async () => undefined };
});

afterEach(() => setDefaultMirrorFilesystem(undefined));

// Writes and reads through mirror:// behave like any Filesystem (everything lands locally).
let m = 0;
filesystemContract('mirror:// over a local directory', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'rigging-mirror-fs-'));
  const fs = createMirrorFilesystem({ localPrefix: dir, remotePrefixes: [`memory://mirror-contract-remote-${++m}`] });
  setDefaultMirrorFilesystem(fs); // cross-backend copies into mirror:// resolve through the default
  return { fs, root: `mirror://t${m}`, [Symbol.asyncDispose]: () => rm(dir, { recursive: true, force: true }) };
});

describe('mirror defaults', () => {
  it('scans no remote for a non-gs:// local prefix', async () => {
    const config = parseDataConfig({ data: { region_buckets: { 'us-east1': { bucket: 'marin-us-east1', store: 'gcs' } } } });
    const fs = createMirrorFilesystem({ localPrefix: '/tmp/somewhere' });
    expect((await withDataConfig(config, () => fs.layout())).remotePrefixes).toEqual([]);
  });

  it('scans the configured gcs buckets in config order, minus the local one', async () => {
    const config = parseDataConfig({
      data: {
        region_buckets: {
          'us-central1': { bucket: 'marin-us-central1', store: 'gcs' },
          'us-east1': { bucket: 'marin-us-east1', store: 'gcs' },
          'r2-auto': { bucket: 'marin-r2', store: 'r2' },
          'europe-west4': { bucket: 'marin-eu-west4', store: 'gcs' },
        },
      },
    });
    const fs = createMirrorFilesystem({ localPrefix: 'gs://marin-us-central1/' });
    const layout = await withDataConfig(config, () => fs.layout());
    expect(layout).toEqual({ localPrefix: 'gs://marin-us-central1', remotePrefixes: ['gs://marin-us-east1', 'gs://marin-eu-west4'] });
  });

  it('backs filesystemFor("mirror://") and resolveMirrorUrl with the replaceable default', async () => {
    const before = filesystemFor('mirror://k.txt');
    const mirror = createMirrorFilesystem({ localPrefix: 'memory://default-local', remotePrefixes: ['memory://default-remote'], log: () => undefined });
    setDefaultMirrorFilesystem(mirror);
    expect(before).not.toBe(mirror);
    await filesystemFor('memory://x').writeText('memory://default-remote/k.txt', 'k');
    expect(filesystemFor('mirror://k.txt')).toBe(mirror);
    expect(await resolveMirrorUrl('mirror://k.txt')).toBe('memory://default-local/k.txt');
    expect(await resolveMirrorUrl('gs://b/x')).toBe('gs://b/x');
  });

  it('serves mirror:// to a process that imports only @marin/rigging (its entry point registers it)', async () => {
    const code = "import { filesystemFor, MirrorFilesystem } from '@marin/rigging'; process.stdout.write(String(filesystemFor('mirror://a/b') instanceof MirrorFilesystem));";
    const { stdout } = await execFileAsync(process.execPath, ['--conditions=@marin/source', '--import', 'tsx', '--input-type=module', '-e', code], { cwd: import.meta.dirname });
    expect(stdout).toBe('true');
  }, 60_000);

  it('extracts the relative key and rejects traversal', () => {
    expect(mirrorRelativeKey('mirror://a/b/')).toBe('a/b');
    expect(() => mirrorRelativeKey('mirror://../x')).toThrow(expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT' }));
    expect(() => mirrorRelativeKey('gs://b/x')).toThrow(expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT' }));
  });
});
