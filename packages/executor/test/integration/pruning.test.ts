import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Executor, ExecutorStep, writeStatus } from '@marin/executor';
import { captureLogger } from '../helpers/capture-logger.js';
import { statusOf } from '../helpers/read-files.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const plain = { progress: 'plain' as const };

/** A step whose function records its name when (and only when) it runs. */
function recordingStep(name: string, executed: string[], deps: ExecutorStep[] = []): ExecutorStep {
  return new ExecutorStep({ name, config: { deps }, fn: () => void executed.push(name) });
}

function downloadNormalizeTokenize(executed: string[]): [ExecutorStep, ExecutorStep, ExecutorStep] {
  const download = recordingStep('download', executed);
  const normalize = recordingStep('normalize', executed, [download]);
  const tokenize = recordingStep('tokenize', executed, [normalize]);
  return [download, normalize, tokenize];
}

/** The output path a run under `prefix` gives `step`, without running anything. */
function outputOf(prefix: string, step: ExecutorStep): string {
  const ex = new Executor({ prefix, logger: captureLogger() });
  ex.computeVersion(step);
  return ex.outputPaths.get(step)!;
}

describe('pruning of built subtrees', () => {
  // Marin's test_runner_prunes_built_terminal_subtree (issue #6783).
  it('runs nothing when only the last of download → normalize → tokenize is SUCCESS', async () => {
    await using tmp = await makeTempDir();
    const executed: string[] = [];
    const [download, normalize, tokenize] = downloadNormalizeTokenize(executed);
    await writeStatus(outputOf(tmp.path, tokenize), 'SUCCESS');

    const ex = new Executor({ prefix: tmp.path, logger: captureLogger() });
    await ex.run([tokenize], plain);

    expect(executed).toEqual([]);
    expect(await statusOf(ex.outputPaths.get(download)!)).toBeNull();
    expect(await statusOf(ex.outputPaths.get(normalize)!)).toBeNull();
    expect(ex.report?.summary).toEqual({ total: 3, ran: 0, skipped: 1, failed: 0, notRun: 0, notNeeded: 2 });
    expect(ex.report?.steps.map((s) => [s.name, s.outcome])).toEqual([
      ['tokenize', 'skipped'],
      ['download', 'pruned'],
      ['normalize', 'pruned'],
    ]);
  });

  it('prunes even when every step is listed and without runOnly, after the outputs were deleted', async () => {
    await using tmp = await makeTempDir();
    const executed: string[] = [];
    const steps = downloadNormalizeTokenize(executed);
    const first = new Executor({ prefix: tmp.path, logger: captureLogger() });
    await first.run(steps, plain);
    expect(executed).toEqual(['download', 'normalize', 'tokenize']);
    await rm(first.outputPaths.get(steps[0])!, { recursive: true });
    await rm(first.outputPaths.get(steps[1])!, { recursive: true });

    await new Executor({ prefix: tmp.path, logger: captureLogger() }).run(steps, plain);
    expect(executed).toEqual(['download', 'normalize', 'tokenize']);
  });

  it('builds every unbuilt ancestor when nothing is cached', async () => {
    await using tmp = await makeTempDir();
    const executed: string[] = [];
    const [, , tokenize] = downloadNormalizeTokenize(executed);
    await new Executor({ prefix: tmp.path, logger: captureLogger() }).run([tokenize], plain);
    expect(executed).toEqual(['download', 'normalize', 'tokenize']);
  });

  it('keeps a shared dependency that an unbuilt sibling branch still needs, and runs it once', async () => {
    await using tmp = await makeTempDir();
    const executed: string[] = [];
    const d = recordingStep('d', executed);
    const b = recordingStep('b', executed, [d]);
    const c = recordingStep('c', executed, [d]);
    const a = recordingStep('a', executed, [b, c]);
    await writeStatus(outputOf(tmp.path, c), 'SUCCESS');
    await new Executor({ prefix: tmp.path, logger: captureLogger() }).run([a], plain);
    expect(executed.sort()).toEqual(['a', 'b', 'd']);
  });

  it('explains the pruning in a dry run and writes nothing', async () => {
    await using tmp = await makeTempDir();
    const [download, normalize, tokenize] = downloadNormalizeTokenize([]);
    const tokenizeOut = outputOf(tmp.path, tokenize);
    await writeStatus(tokenizeOut, 'SUCCESS');

    const ex = new Executor({ prefix: tmp.path, logger: captureLogger() });
    const plans = await ex.explain([tokenize], plain);
    const label = (s: ExecutorStep): string => ex.label(s);
    expect(plans.map((p) => [p.label, p.action])).toEqual([
      [label(tokenize), 'skip'],
      [label(download), 'prune'],
      [label(normalize), 'prune'],
    ]);
    expect(plans[1]!.reason).toBe(`not needed: downstream already built (${label(tokenize)})`);

    const logger = captureLogger();
    await new Executor({ prefix: tmp.path, logger }).run([tokenize], { ...plain, dryRun: true });
    expect(logger.infos).toContain(`  prune ${label(normalize)}: not needed: downstream already built (${label(tokenize)})`);
    expect(await statusOf(join(tmp.path, label(download)))).toBeNull();
  });

  it('fails a built step whose output vanished after its inputs were pruned, instead of running it', async () => {
    await using tmp = await makeTempDir();
    const executed: string[] = [];
    const [, , tokenize] = downloadNormalizeTokenize(executed);
    const tokenizeOut = outputOf(tmp.path, tokenize);
    await writeStatus(tokenizeOut, 'SUCCESS');
    // Runs first (one slot) and deletes the built output between selection and launch.
    const vanish = new ExecutorStep({ name: 'vanish', config: {}, fn: () => rm(tokenizeOut, { recursive: true }) });

    const ex = new Executor({ prefix: tmp.path, logger: captureLogger() });
    const run = ex.run([vanish, tokenize], { ...plain, maxConcurrent: 1 });
    await expect(run).rejects.toMatchObject({
      code: 'EXECUTOR_STEP_FAILED',
      cause: { code: 'EXECUTOR_STEP_FAILED', cause: { details: { reason: 'pruned-output-vanished' } } },
    });
    expect(executed).toEqual([]);
  });
});
