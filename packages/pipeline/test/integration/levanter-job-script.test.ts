import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { levanterJobScriptPath } from '../../src/assets.js';
import { parseMetricsRecords } from '../../src/levanter/levanter-metrics.js';
import { levanterPython } from '../helpers/levanter-python.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'levanter-job-script-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs `python levanter_job.py <args>` in the Levanter environment; resolves whatever the exit code. */
async function runJobScript(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const python = await levanterPython();
  return new Promise((resolve, reject) => {
    const child = spawn(python, [levanterJobScriptPath(), ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, JAX_PLATFORMS: 'cpu', WANDB_MODE: 'disabled' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// Levanter's real json_logger tracker, logging as the trainer does: several calls per step.
const TRACKER_RUN = `
import logging, os, sys
from levanter.tracker.json_logger import JsonLoggerConfig
logging.basicConfig(level=logging.INFO)
tracker = JsonLoggerConfig().init(None)
tracker.log_hyperparameters({"trainer": {"num_train_steps": 2}})
tracker.log({"train/loss": 7.5, "optim/learning_rate": 0.003}, step=0)
tracker.log({"throughput": {"tokens_per_second": 6000.0}, "note": "text"}, step=0)
tracker.log({"train/loss": 7.25}, step=1)
tracker.log({"eval/quickstart/bpb": 4.5}, step=1)
print("to stdout", sys.argv[1:])
os.write(2, b"from C-level stderr\\n")
tracker.finish()
`;

describe('levanter_job.py', () => {
  it('sends all output to the log file and writes one metrics record per step from the real json_logger tracker', async () => {
    const log = join(dir, 'quiet', 'logs', 'job.log');
    const metrics = join(dir, 'quiet', 'metrics', 'metrics.jsonl');
    const result = await runJobScript(['--output-log', log, '--metrics', metrics, '--', '-c', TRACKER_RUN, 'a', 'b']);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    const text = await readFile(log, 'utf8');
    expect(text).toContain("to stdout ['a', 'b']");
    expect(text).toContain('from C-level stderr');
    expect(text).toContain('"event": "hparams"');
    const records = parseMetricsRecords(await readFile(metrics, 'utf8'));
    expect(records.map((r) => ({ step: r.step, metrics: r.metrics }))).toEqual([
      { step: 0, metrics: { 'train/loss': 7.5, 'optim/learning_rate': 0.003, 'throughput/tokens_per_second': 6000 } },
      { step: 1, metrics: { 'train/loss': 7.25, 'eval/quickstart/bpb': 4.5 } },
    ]);
    expect(records.every((r) => r.time > 1.7e9)).toBe(true);
    // Importing Levanter (JAX) takes seconds alone and minutes on a loaded machine.
  }, 600_000);

  it('with --echo also shows the output, and keeps a failing command\'s exit code and traceback', async () => {
    const log = join(dir, 'echo', 'job.log');
    const result = await runJobScript(['--output-log', log, '--echo', '--', '-c', 'import sys\nprint("hello")\nraise ValueError("bad config")']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('hello');
    expect(result.stdout).toContain('ValueError: bad config');
    const text = await readFile(log, 'utf8');
    expect(text).toContain('hello');
    expect(text).toMatch(/Traceback \(most recent call last\):[\s\S]*ValueError: bad config/);
  }, 120_000);

  it('runs a module with -m as python does, and replaces the log of an earlier attempt', async () => {
    const log = join(dir, 'module', 'job.log');
    await runJobScript(['--output-log', log, '--', '-c', 'print("first attempt")']);
    const result = await runJobScript(['--output-log', log, '--', '-m', 'json.tool', '--help']);
    expect(result.code).toBe(0);
    const text = await readFile(log, 'utf8');
    expect(text).toContain('usage:');
    expect(text).not.toContain('first attempt');
  }, 120_000);
});
