// The ArtifactStep interop tests again on a gs:// prefix served by fake-gcs-server: TypeScript and Python Marin
// (marin-core 0.2.227, gcsfs) resolve each other's artifacts without re-running, and a lease Python holds on the
// bucket makes TypeScript wait.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readText } from '@marin/rigging';
import { startFakeGcs } from '@marin/rigging/testing';
import type { FakeGcsHandle } from '@marin/rigging/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resolveArtifact, runArtifacts } from '../../src/artifact/artifact-runner.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { interopGraph, runsLog } from '../helpers/interop-graph.js';
import { runMarinPython, startMarinPython } from '../helpers/marin-core-python.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import type { TempDir } from '../helpers/temp-dir.js';

const V = '2026.11.25';
const TIMINGS = { heartbeatS: 30, timeoutS: 90, pollS: 1 };
let gcs: FakeGcsHandle | undefined;
let side: TempDir;
let prefix = '';

beforeAll(async () => {
  gcs = await startFakeGcs({ setEnv: true });
});
afterAll(async () => {
  await gcs?.close();
});
beforeEach(async () => {
  side = await makeTempDir('artifact-gcs-side');
  prefix = `gs://${await gcs!.createUniqueBucket('artifacts')}/marin`;
});
afterEach(async () => {
  await side.close();
});

const opts = () => ({ prefix, logger: captureLogger(), timings: TIMINGS });
const pyEnv = () => ({ RUNS_LOG: join(side.path, 'runs.log') });

describe('ArtifactStep interop with marin-core 0.2.227 on gs:// (fake-gcs-server)', () => {
  it('TypeScript builds, Python resolves without re-running; then the reverse on a new version', async () => {
    const { total } = interopGraph(prefix, V, { logDir: side.path });
    expect(await resolveArtifact(total, opts())).toMatchObject({ total: 10, count: 5 });
    const resolved = await runMarinPython('artifact_interop.py', ['resolve', V], { prefix, env: pyEnv() });
    expect(JSON.parse(resolved.stdout)).toEqual({ total: 10, count: 5, path: `${prefix}/interop/total/${V}` });

    const V2 = '2026.11.26';
    await runMarinPython('artifact_interop.py', ['run', V2], { prefix, env: pyEnv() });
    const [loaded] = await runArtifacts([interopGraph(prefix, V2, { logDir: side.path }).total], opts());
    expect(loaded).toMatchObject({ total: 10, count: 5, record: { name: 'interop/total', version: V2 } });
    expect(await readText(`${prefix}/interop/total/${V2}/.executor_status`)).toBe('SUCCESS');
    expect(await runsLog(side.path)).toEqual(['ts numbers', 'ts total', 'py numbers', 'py total']);
  });

  it('a lease Python holds on the bucket makes TypeScript wait, and the step runs once', async () => {
    const gate = join(side.path, 'release-gate');
    const python = await startMarinPython('artifact_interop.py', ['run', V, '--block-until', gate], { prefix, env: pyEnv() });
    await python.waitForStdout('holding');
    let tsDone = false;
    const tsRun = runArtifacts([interopGraph(prefix, V, { logDir: side.path }).total], opts()).finally(() => (tsDone = true));
    await sleep(3000);
    expect(tsDone).toBe(false);
    await writeFile(gate, '');
    const [loaded] = await tsRun;
    const done = await python.exited;
    expect(done.code, done.stderr.slice(-2000)).toBe(0);
    expect(loaded).toMatchObject({ total: 10 });
    const log = await runsLog(side.path);
    expect(log.filter((l) => l.endsWith('numbers'))).toEqual(['py numbers']);
    expect(log.filter((l) => l.endsWith('total'))).toHaveLength(1);
  });
});
