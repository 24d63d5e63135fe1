import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createBundle } from '../../src/bundle/create-bundle.js';
import { startTestCluster } from '../../src/testing/index.js';

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
});
