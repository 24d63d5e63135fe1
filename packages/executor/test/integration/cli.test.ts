import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ExecutorStep, executorMain } from '@marin/executor';
import { captureLogger } from '../helpers/capture-logger.js';
import { fixturePath, PACKAGE_DIR, runFixture } from '../helpers/fixture-process.js';
import { listTree } from '../helpers/read-files.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('executorMain() as a process', () => {
  it.each([
    ['an unknown flag', ['--bogus']],
    ['a positional argument', ['extra']],
    ['--max-concurrent 0', ['--max-concurrent', '0']],
    ['an invalid --run-only regex', ['--run-only', '(unclosed']],
    ['--run-step without --step-config-file', ['--run-step', '/tmp/x']],
  ])('exits 2 with one line pointing at --help for %s and writes nothing', async (_what, args) => {
    await using tmp = await makeTempDir();
    const prefix = join(tmp.path, 'prefix');
    const r = await runFixture('two-steps.ts', { args: ['--prefix', prefix, ...args] });
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^error: .+ \(see two-steps\.ts --help\)$/)]);
    expect(await listTree(tmp.path)).toEqual([]);
  });

  it('prints the usage with the script name and exits 0 for --help', async () => {
    await using tmp = await makeTempDir();
    const r = await runFixture('two-steps.ts', { args: ['--prefix', tmp.path, '--help'] });
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('usage: two-steps.ts [options]')).toBe(true);
    expect(r.stdout).toContain('--run-only');
    expect(await listTree(tmp.path)).toEqual([]);
  });

  it('suggests the flag meant by a typo', async () => {
    await using tmp = await makeTempDir();
    const r = await runFixture('two-steps.ts', { args: ['--prefix', tmp.path, '--dry-rn'] });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('did you mean --dry-run?');
    expect(await listTree(tmp.path)).toEqual([]);
  });

  it('exits 2 for a --run-only pattern that matches no step, listing close step names, and writes nothing', async () => {
    await using tmp = await makeTempDir();
    const r = await runFixture('two-steps.ts', { args: ['--prefix', tmp.path, '--run-only', '^cli/aa$'] });
    expect(r.code).toBe(2);
    // One line, the pattern as typed (not escaped), close names, where the usage is.
    expect(r.stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(/^error: --run-only "\^cli\/aa\$" matched no step; did you mean cli\/a\b.* \(see two-steps\.ts --help\)$/)]);
    expect(await listTree(tmp.path)).toEqual([]);
    const slash = await runFixture('two-steps.ts', { args: ['--prefix', tmp.path, '--run-only', 'myexp/totl'] });
    expect(slash.code).toBe(2);
    expect(slash.stderr).toContain('--run-only "myexp/totl" matched no step; steps: cli/a, cli/b');
  });

  it('ends a failed run with one block per failed step (cause, the user frame, the log file) and exit 1, no stack', async () => {
    await using tmp = await makeTempDir();
    const r = await runFixture('failing-step.ts', { args: ['--prefix', tmp.path, '--json'] });
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n');
    const head = lines.findIndex((l) => l.startsWith('FAILED '));
    expect(lines.filter((l) => l.startsWith('FAILED '))).toHaveLength(1);
    expect(lines[head]).toMatch(/^FAILED fail\/b-[0-9a-f]{6}: vocab\.json: no such file in the tokenizer directory$/);
    // The first frame in the user's own code (the fixture), not the executor's, in a clickable form.
    expect(lines[head + 1]).toMatch(new RegExp(`^  at ${fixturePath('failing-step.ts').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+$`));
    expect(lines[head + 2]).toMatch(/^ {2}full error: \S+$/);
    // The progress line carries the cause too.
    expect(r.stderr).toMatch(/^✗ fail\/b-[0-9a-f]{6} failed after \d+\.\d\ds: vocab\.json: no such file/m);
    expect(r.stderr).not.toMatch(/^\s+at (?!\/)/m);
    const logFile = /full error: (\S+)/.exec(r.stderr)?.[1];
    expect(await readFile(logFile!, 'utf8')).toContain('could not load the vocabulary');
    const report = JSON.parse(r.stdout) as { ok: boolean; summary: Record<string, number>; steps: { name: string; outcome: string; failure: unknown }[] };
    expect(report.ok).toBe(false);
    expect(report.summary).toMatchObject({ total: 3, ran: 2, failed: 1 });
    expect(report.steps.find((s) => s.name === 'fail/b')).toMatchObject({
      outcome: 'failed',
      failure: { cause: 'vocab.json: no such file in the tokenizer directory', chain: expect.arrayContaining(['could not load the vocabulary']) },
    });

    const verbose = await runFixture('failing-step.ts', { args: ['--prefix', tmp.path, '--verbose'] });
    expect(verbose.code).toBe(1);
    // One stack, once: the innermost error's.
    expect(verbose.stderr.match(/^\s+at loadVocabulary /gm)).toHaveLength(1);
    expect(verbose.stderr).not.toContain('full error:');
  });

  it('prints the dry-run plan as JSON with --json', async () => {
    await using tmp = await makeTempDir();
    const r = await runFixture('two-steps.ts', { args: ['--prefix', tmp.path, '--dry-run', '--json'] });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { dryRun: boolean; plan: { name: string; action: string; reason: string; diff: unknown }[] };
    expect(out.dryRun).toBe(true);
    expect(out.plan.map((p) => [p.name, p.action])).toEqual([
      ['cli/a', 'run'],
      ['cli/b', 'run'],
    ]);
    expect(await listTree(tmp.path)).toEqual([]);
  });

  it('fails on a dependency cycle, naming a step of it, and writes nothing', async () => {
    await using tmp = await makeTempDir();
    const r = await runFixture('two-steps.ts', { args: ['--prefix', tmp.path], env: { CYCLE: '1' } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('EXECUTOR_CYCLE');
    expect(r.stderr).toMatch(/cli\/[ab]/);
    expect(await listTree(tmp.path)).toEqual([]);
  });

  it('writes a stable experiment JSON named after the entry script, fields in order', async () => {
    await using tmp = await makeTempDir();
    const first = await runFixture('two-steps.ts', { args: ['--prefix', tmp.path] });
    expect(first.code, first.stderr).toBe(0);
    const second = await runFixture('two-steps.ts', { args: ['--prefix', tmp.path] });
    expect(second.code, second.stderr).toBe(0);
    const files = await readdir(join(tmp.path, 'experiments'));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^two-steps-[0-9a-f]{6}\.json$/);
    const experiment = JSON.parse(await readFile(join(tmp.path, 'experiments', files[0]!), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(experiment)).toEqual(['worker_id', 'git_commit', 'caller_path', 'created_date', 'user', 'prefix', 'steps']);
    expect(experiment['caller_path']).toBe(fixturePath('two-steps.ts'));
    expect(experiment['prefix']).toBe(tmp.path);
    expect(experiment['worker_id']).toMatch(/^.+-\d+$/);
    const steps = experiment['steps'] as Record<string, unknown>[];
    expect(steps.map((s) => s['fn_name'])).toEqual(['writeA', 'writeB']);
  });

  it('prints a start and an end line per step and the summary off a TTY; --verbose every state change; --quiet the summary', async () => {
    await using tmp = await makeTempDir();
    const r = await runFixture('two-steps.ts', { args: ['--prefix', tmp.path] });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.replace(/\d+\.\d\ds/g, 'T').replace(/-[0-9a-f]{6}/g, '-H')).toBe(
      [
        '▶ cli/a-H started: no earlier output',
        '✓ cli/a-H done in T',
        '▶ cli/b-H started: no earlier output',
        '✓ cli/b-H done in T',
        '2 steps: 2 ran, 0 skipped (already succeeded), 0 failed, 0 not run (dependency failed)',
        '',
      ].join('\n'),
    );
    const verbose = await runFixture('two-steps.ts', { args: ['--prefix', tmp.path, '--verbose'] });
    expect(verbose.stderr).toMatch(/^· cli\/b-[0-9a-f]{6} queued$/m);
    expect(verbose.stderr).toMatch(/^↷ cli\/b-[0-9a-f]{6} skipped: already succeeded$/m);
    expect(verbose.stderr).toMatch(/^\[executor\] INFO Executor info written to /m);
    const quiet = await runFixture('two-steps.ts', { args: ['--prefix', tmp.path, '--quiet', '--force-run', 'cli/b'] });
    expect(quiet.stderr).toBe('2 steps: 1 ran, 1 skipped (already succeeded), 0 failed, 0 not run (dependency failed)\n');
    expect(r.stderr).not.toContain('\x1b[');
  });

  it('shows the live view on a TTY when CI is unset (auto mode)', async () => {
    await using tmp = await makeTempDir();
    // util-linux `script` runs the fixture on a pseudo-terminal, so stderr.isTTY is true.
    const { spawn } = await import('node:child_process');
    const command = [process.execPath, '--conditions=@marin/source', '--import', 'tsx', fixturePath('two-steps.ts'), '--prefix', tmp.path]
      .map((a) => `'${a}'`)
      .join(' ');
    const env = { ...process.env };
    delete env['CI'];
    const output = await new Promise<{ code: number | null; text: string }>((resolve) => {
      const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: PACKAGE_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (text += d));
      child.on('exit', (code) => resolve({ code, text }));
    });
    expect(output.code, output.text).toBe(0);
    expect(output.text).toContain('\x1b[');
    expect(output.text).toContain('2 steps: 2 ran, 0 skipped (already succeeded), 0 failed, 0 not run (dependency failed)');
    expect(output.text).not.toMatch(/^\[executor\] cli\/a-[0-9a-f]{6}: queued/m);
  });

  it('forces the live view with --progress live', async () => {
    await using tmp = await makeTempDir();
    const r = await runFixture('two-steps.ts', { args: ['--prefix', tmp.path, '--progress', 'live'] });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('\x1b[');
    expect(r.stderr).toContain('2 steps: 2 ran, 0 skipped (already succeeded), 0 failed, 0 not run (dependency failed)');
  });
});

describe('executorMain() in process', () => {
  const saved = process.env['MARIN_PREFIX'];
  afterEach(() => {
    if (saved === undefined) delete process.env['MARIN_PREFIX'];
    else process.env['MARIN_PREFIX'] = saved;
  });

  it('lets --prefix beat MARIN_PREFIX', async () => {
    await using envPrefix = await makeTempDir();
    await using cliPrefix = await makeTempDir();
    process.env['MARIN_PREFIX'] = envPrefix.path;
    const a = new ExecutorStep({ name: 'a', config: {}, fn: () => {} });
    const paths = await executorMain({ steps: [a], argv: ['--prefix', cliPrefix.path, '--progress', 'plain'], logger: captureLogger() });
    expect(paths!.get(a)!.startsWith(cliPrefix.path + '/')).toBe(true);
    expect(await listTree(envPrefix.path)).toEqual([]);
  });

  it('lets the maxConcurrent argument override --max-concurrent', async () => {
    await using tmp = await makeTempDir();
    let active = 0;
    let peak = 0;
    const steps = Array.from(
      { length: 4 },
      (_, i) =>
        new ExecutorStep({
          name: `c${i}`,
          config: {},
          fn: async () => {
            peak = Math.max(peak, ++active);
            await sleep(100);
            active--;
          },
        }),
    );
    await executorMain({ steps, maxConcurrent: 1, argv: ['--prefix', tmp.path, '--max-concurrent', '4', '--progress', 'plain'], logger: captureLogger() });
    expect(peak).toBe(1);
  });

  it('defaults the prefix to /tmp/marin within 3 seconds when neither --prefix nor MARIN_PREFIX is set', async () => {
    delete process.env['MARIN_PREFIX'];
    const unique = `executor-cli-test/${process.pid}-${Date.now()}`;
    const a = new ExecutorStep({ name: unique, config: {}, fn: () => {} });
    const t0 = performance.now();
    const paths = await executorMain({ steps: [a], argv: ['--dry-run'], logger: captureLogger() });
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(paths!.get(a)!.startsWith(`/tmp/marin/${unique}-`)).toBe(true);
  });

  it('returns null and calls exit(0) for --help', async () => {
    const codes: number[] = [];
    const a = new ExecutorStep({ name: 'a', config: {}, fn: () => {} });
    const result = await executorMain({ steps: [a], argv: ['--help'], exit: (c) => void codes.push(c) });
    expect(result).toBeNull();
    expect(codes).toEqual([0]);
  });
});
