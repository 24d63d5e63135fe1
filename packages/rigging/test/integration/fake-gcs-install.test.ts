import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../helpers/ensure-fake-gcs.ts', import.meta.url));

describe('ensureFakeGcsBinary()', () => {
  it('fails with RIGGING_UNAVAILABLE and install instructions when the emulator cannot be installed', async () => {
    const home = await mkdtemp(join(tmpdir(), 'rigging-nogo-'));
    try {
      // No Go on PATH and an empty HOME: the binary is missing and `go install` cannot run.
      const { stdout } = await run(process.execPath, ['--conditions=@marin/source', '--import', 'tsx', SCRIPT], {
        env: { PATH: dirname(process.execPath), HOME: home },
      });
      expect(JSON.parse(stdout.trim())).toMatchObject({
        ok: false,
        code: 'RIGGING_UNAVAILABLE',
        details: { operation: 'install', install: 'go install github.com/fsouza/fake-gcs-server@v1.56.1' },
      });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
