import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeGcs } from '@marin/rigging/testing';
import type { FakeGcsHandle } from '@marin/rigging/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { runLogArchiveScenario } from '../helpers/log-archive-scenario.js';

let gcs: FakeGcsHandle | undefined;
let root: string;

beforeAll(async () => {
  // The CLI processes the scenario spawns inherit STORAGE_EMULATOR_HOST.
  gcs = await startFakeGcs({ setEnv: true });
  root = mkdtempSync(join(tmpdir(), 'iris-log-archive-gcs-'));
});

afterAll(async () => {
  await gcs?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('log archive on gs:// (fake-gcs-server)', () => {
  it('keeps a job\'s logs readable by `iris job logs` and the dashboard after its rows are pruned and the controller restarts', async () => {
    const bucket = await gcs!.createUniqueBucket('iris-logs');
    await runLogArchiveScenario({ stateDir: join(root, 'state'), home: root, logArchive: `gs://${bucket}/cluster/logs` });
  }, 180_000);
});
