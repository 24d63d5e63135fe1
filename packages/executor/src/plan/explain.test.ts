import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExecutorStep } from '../dag/executor-step.js';
import { silentLogger } from '../logger.js';
import { VersionGraph } from '../versioning/version-graph.js';
import { explainSteps } from './explain.js';

const timings = { heartbeatS: 30, timeoutS: 90, pollS: 5 };

describe('explainSteps()', () => {
  let prefix = '';
  beforeEach(async () => {
    prefix = await mkdtemp(join(tmpdir(), 'explain-'));
  });
  afterEach(async () => {
    await rm(prefix, { recursive: true, force: true });
  });

  async function planAt(ageS: number): Promise<{ action: string; reason: string }> {
    const step = new ExecutorStep({ name: 'a', config: {}, fn: () => {} });
    const graph = new VersionGraph({ prefix, logger: silentLogger });
    graph.computeVersion(step, false);
    const out = graph.outputPaths.get(step)!;
    await mkdir(out, { recursive: true });
    await writeFile(join(out, '.executor_status'), 'RUNNING');
    const t = 1_700_000_000;
    await writeFile(join(out, '.executor_status.lock'), `{"worker_id": "host-123-4", "timestamp": ${t}.0}`);
    const [plan] = await explainSteps({
      graph,
      stepsToRun: [step],
      statuses: new Map([[step, 'RUNNING']]),
      forceRunFailed: true,
      timings,
      logger: silentLogger,
      now: () => (t + ageS) * 1000,
    });
    return plan!;
  }

  it('waits on a lease exactly MARIN_LEASE_TIMEOUT_S old (fresh) and names its holder', async () => {
    const plan = await planAt(90);
    expect(plan.action).toBe('wait');
    expect(plan.reason).toContain('host-123-4');
  });

  it('takes over a lease older than the timeout', async () => {
    expect((await planAt(90.5)).action).toBe('take over');
    expect((await planAt(300)).action).toBe('take over');
  });
});
