import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIrisClient } from '../../src/client/iris-client.js';
import { startController } from '../../src/cluster/start-controller.js';
import type { ControllerHandle } from '../../src/cluster/start-controller.js';
import { craftedTarGz } from '../helpers/crafted-tar.js';
import { bundleFileOf, bundleIdOf } from '../../src/bundle/bundle-manifest.js';

let root: string;
let prefix: string;
let elsewhere: string;
let controller: ControllerHandle;

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${controller.dashboardUrl}api/${path}`, { signal: AbortSignal.timeout(20_000) });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'iris-dashboard-experiments-'));
  prefix = join(root, 'served');
  elsewhere = join(root, 'elsewhere');
  mkdirSync(join(prefix, 'experiments'), { recursive: true });
  mkdirSync(join(prefix, 'hello', 'data-abcdef'), { recursive: true });
  mkdirSync(join(elsewhere, 'experiments'), { recursive: true });
  mkdirSync(join(elsewhere, 'step-123456'), { recursive: true });
  writeFileSync(join(prefix, 'hello', 'data-abcdef', '.executor_status'), 'SUCCESS\n');
  writeFileSync(join(elsewhere, 'step-123456', '.executor_status'), 'SECRET_STATUS\n');
  const steps = [
    { name: 'hello/data', output_path: join(prefix, 'hello', 'data-abcdef'), dependencies: [] },
    { name: 'outside', output_path: join(elsewhere, 'step-123456'), dependencies: [] },
  ];
  writeFileSync(join(prefix, 'experiments', 'hello-0a1b2c.json'), JSON.stringify({ created_date: '2026-11-25', caller_path: 'hello.js', steps }));
  writeFileSync(join(prefix, 'experiments', 'unrelated.json'), JSON.stringify({ created_date: 'leaked?', caller_path: 'leaked?', password: 'x' }));
  writeFileSync(join(elsewhere, 'experiments', 'private.json'), JSON.stringify({ steps: [] }));
  // A FIFO posing as an experiment file: opening it for reading blocks until a writer comes.
  execFileSync('mkfifo', [join(prefix, 'experiments', 'x.json')]);
  controller = await startController({ experimentPrefixes: [prefix] });
});
afterAll(async () => {
  await controller?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the experiments view reads only what the controller is configured to serve', () => {
  it('draws an experiment under a configured prefix, however the prefix is spelled, and reads no step outside it', async () => {
    for (const spelled of [prefix, `${prefix}/`, prefix.replace('/served', '//served/.'), `file://${prefix}`]) {
      const r = await get(`experiment?prefix=${encodeURIComponent(spelled)}&file=hello-0a1b2c.json`);
      expect(r.status, spelled).toBe(200);
      const steps = r.body['steps'] as { name: string; status: string | null }[];
      expect(steps.map((s) => [s.name, s.status])).toEqual([
        ['hello/data', 'SUCCESS'],
        ['outside', null],
      ]);
    }
  });

  it('refuses any other prefix (local, file://, gs://, mirror://) with 400 and the same answer whether or not it exists', async () => {
    const answers = [];
    for (const other of [elsewhere, join(root, 'no-such-dir'), '/', 'file:///etc', 'gs://some-bucket/x', 'mirror://x']) {
      for (const path of [`experiments?prefix=${encodeURIComponent(other)}`, `experiment?prefix=${encodeURIComponent(other)}&file=private.json`]) {
        const r = await get(path);
        expect(r.status, path).toBe(400);
        expect(r.body['code']).toBe('IRIS_INVALID_ARGUMENT');
        answers.push(String(r.body['message']).replace(other.slice(0, 200), '<prefix>'));
      }
    }
    expect(new Set(answers).size).toBe(1);
  });

  it('answers 4xx for missing, misnamed, unrelated and non-regular files, never 500', async () => {
    const p = encodeURIComponent(prefix);
    expect(await get(`experiment?prefix=${p}&file=missing.json`)).toMatchObject({ status: 404, body: { code: 'IRIS_NOT_FOUND' } });
    for (const file of ['../elsewhere/experiments/private.json', '..%2F..%2Fetc%2Fpasswd', 'notes.txt', '.hidden.json']) {
      expect((await get(`experiment?prefix=${p}&file=${file}`)).status, file).toBe(400);
    }
    expect(await get(`experiment?prefix=${p}&file=unrelated.json`)).toMatchObject({ status: 400, body: { code: 'IRIS_INVALID_ARGUMENT' } });
    expect(await get(`experiment?prefix=${p}&file=x.json`)).toMatchObject({ status: 400, body: { code: 'IRIS_INVALID_ARGUMENT' } });
    const list = await get(`experiments?prefix=${p}`);
    expect(list.status).toBe(200);
    const unrelated = (list.body['experiments'] as { file: string; createdDate: string | null; callerPath: string | null }[]).find((e) => e.file === 'unrelated.json');
    expect(unrelated).toMatchObject({ createdDate: null, callerPath: null });
  });

  it('keeps serving bundle uploads while requests for a FIFO named like an experiment file keep coming', async () => {
    const p = encodeURIComponent(prefix);
    const fifoRequests = Array.from({ length: 12 }, (_, i) => get(i % 2 === 0 ? `experiment?prefix=${p}&file=x.json` : `experiments?prefix=${p}`));
    await using client = createIrisClient({ address: controller.address, deadlineMs: 20_000 });
    for (let i = 0; i < 3; i += 1) {
      const body = `file ${i}`;
      const id = bundleIdOf([bundleFileOf('a.txt', Buffer.from(body), 0o644)]);
      const bundle = { id, root: '/nowhere', files: [], totalBytes: body.length, archive: craftedTarGz([{ path: 'a.txt', body }]) };
      await expect(client.uploadBundle(bundle)).resolves.toBe(id);
    }
    const answers = await Promise.all(fifoRequests);
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? 400 : 200)));
  }, 60_000);
});
