import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { runLogArchiveScenario } from '../helpers/log-archive-scenario.js';

describe('log archive in a local directory (the local cluster\'s default, under its state dir)', () => {
  it('keeps a job\'s logs readable by `iris job logs` and the dashboard after its rows are pruned and the controller restarts', async () => {
    const root = mkdtempSync(join(tmpdir(), 'iris-log-archive-'));
    try {
      await runLogArchiveScenario({ stateDir: join(root, 'state'), home: root });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 180_000);
});
