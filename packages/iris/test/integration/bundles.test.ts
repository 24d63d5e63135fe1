import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleIdOf } from '../../src/bundle/bundle-manifest.js';
import { createBundle } from '../../src/bundle/create-bundle.js';
import type { Bundle } from '../../src/bundle/create-bundle.js';
import { createIrisClient } from '../../src/client/iris-client.js';
import { startController } from '../../src/cluster/start-controller.js';
import { startTestCluster } from '../../src/testing/index.js';
import { craftedTarGz, zeroBombTarGz } from '../helpers/crafted-tar.js';
import type { CraftedEntry } from '../helpers/crafted-tar.js';

const MIB = 1024 * 1024;

/** A crafted archive dressed as a bundle, with the id its regular files would have. */
function craftedBundle(entries: CraftedEntry[], archive = craftedTarGz(entries)): Bundle {
  const files = entries
    .filter((e) => (e.type ?? 'File') === 'File')
    .map((e) => ({ path: e.path, mode: 0o644 as const, sha256: createHash('sha256').update(e.body ?? '').digest('hex'), sizeBytes: Buffer.byteLength(e.body ?? '') }));
  return { id: bundleIdOf(files), root: '/nowhere', files, totalBytes: 0, archive };
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('bundles through the controller', () => {
  it('uploads a workspace once (HasBundle) and runs the job inside the extracted bundle', async () => {
    const root = mkdtempSync(join(tmpdir(), 'iris-ws-'));
    dirs.push(root);
    writeFileSync(join(root, 'main.js'), "console.log('from bundle ' + require('./data.json').n);\n");
    writeFileSync(join(root, 'data.json'), '{"n": 42}\n');
    await using cluster = await startTestCluster('single');
    await using client = cluster.client();
    const bundle = await createBundle({ root });
    expect(await client.uploadBundle(bundle)).toBe(bundle.id);
    expect(await client.uploadBundle(bundle)).toBe(bundle.id); // present: not sent again
    const jobId = await client.launchJob({ name: '/b/run', entrypoint: { run: ['node', 'main.js'], setup: [] } }, { bundle: { root } });
    const job = await client.waitForJob(jobId, { timeoutMs: 60_000 });
    const logs = (await client.fetchLogs({ jobId })).entries.map((e) => e.data);
    expect(job.state, logs.join('\n')).toBe('SUCCEEDED');
    expect(logs).toContain('from bundle 42');
  }, 120_000);

  it('rejects an archive that does not match its id', async () => {
    const root = mkdtempSync(join(tmpdir(), 'iris-ws-'));
    dirs.push(root);
    writeFileSync(join(root, 'a.txt'), 'a');
    await using cluster = await startTestCluster('single', { workers: 0 });
    await using client = cluster.client();
    const bundle = await createBundle({ root });
    await expect(client.uploadBundle({ ...bundle, id: 'f'.repeat(64) })).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
  });

  it('refuses a decompression bomb while it streams in with IRIS_BUNDLE_TOO_LARGE, stores nothing, and keeps serving uploads', async () => {
    await using controller = await startController({ dashboardBind: null, bundleLimits: { maxInflatedBytes: 16 * MIB } });
    await using client = createIrisClient({ address: controller.address });
    const bomb = craftedBundle([{ path: 'big', body: '' }], zeroBombTarGz('big', 1024 * MIB)); // ~1 MiB sent, 1 GiB inflated
    expect(bomb.archive.length).toBeLessThan(2 * MIB);
    await expect(client.uploadBundle(bomb)).rejects.toMatchObject({ code: 'IRIS_BUNDLE_TOO_LARGE' });
    const ok = craftedBundle([{ path: 'a.txt', body: 'a' }]);
    expect(await client.uploadBundle(ok)).toBe(ok.id);
    await expect(client.uploadBundle(bomb)).rejects.toMatchObject({ code: 'IRIS_BUNDLE_TOO_LARGE' });
  }, 60_000);

  it('says why an archive is refused (IRIS_BUNDLE_UNSAFE: symlink, hardlink, "..", FIFO, device, file/directory clash)', async () => {
    await using controller = await startController({ dashboardBind: null });
    await using client = createIrisClient({ address: controller.address });
    const cases: [CraftedEntry[], string][] = [
      [[{ path: 'a', body: 'a' }, { path: 'link', type: 'SymbolicLink', linkpath: '/etc/passwd' }], 'symlink'],
      [[{ path: 'a', body: 'a' }, { path: 'hard', type: 'Link', linkpath: 'a' }], 'hard link'],
      [[{ path: '../escape', body: 'a' }], '".."'],
      [[{ path: 'a', body: 'a' }, { path: 'pipe', type: 'FIFO' }], 'FIFO'],
      [[{ path: 'a', body: 'a' }, { path: 'null', type: 'CharacterDevice' }], 'device'],
      [[{ path: 'x', body: 'a' }, { path: 'x/y', body: 'b' }], 'both a file and a directory'],
    ];
    for (const [entries, reason] of cases) {
      const err = await client.uploadBundle(craftedBundle(entries)).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'IRIS_BUNDLE_UNSAFE' });
      expect((err as Error).message).toContain(reason);
      expect((err as Error).message).not.toContain('does not match');
    }
  });

  it('refuses a malformed bundle_id with IRIS_INVALID_ARGUMENT on upload, lookup and launch', async () => {
    await using controller = await startController({ dashboardBind: null });
    await using client = createIrisClient({ address: controller.address });
    for (const id of ['../../etc/passwd', 'A'.repeat(64), 'abc']) {
      await expect(client.uploadBundle({ ...craftedBundle([{ path: 'a', body: 'a' }]), id })).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
      await expect(client.launchJob({ name: '/alice/bad-bundle', command: ['true'] }, { bundle: { bundleId: id } })).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
    }
  });
});
