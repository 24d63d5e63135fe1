import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXPERIMENTS_DIR, NODE_FLAGS, runNode } from './helpers/run-process.js';

const SUMMARY_RAN = '2 steps: 2 ran, 0 skipped (already succeeded), 0 failed, 0 not run (dependency failed)';
const SUMMARY_SKIPPED = '2 steps: 0 ran, 2 skipped (already succeeded), 0 failed, 0 not run (dependency failed)';

/** Durations vary from run to run: `0.02s` → `T`. */
const normalize = (text: string): string => text.replace(/\b\d+\.\d\ds\b/g, 'T');

/**
 * Runs hello_world on a real pseudo-terminal (util-linux `script`), so its stderr is a TTY, and
 * returns everything the terminal received.
 */
function runOnTty(args: string[], env: Record<string, string>): Promise<{ code: number | null; text: string }> {
  const command = [process.execPath, ...NODE_FLAGS, 'hello_world.js', ...args].map((a) => `'${a}'`).join(' ');
  const childEnv: NodeJS.ProcessEnv = { ...process.env, IRIS_CONTROLLER_ADDRESS: '' };
  for (const k of ['CI', 'NO_COLOR', 'FORCE_COLOR']) delete childEnv[k];
  Object.assign(childEnv, env);
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: EXPERIMENTS_DIR, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (text += d));
    child.on('exit', (code) => resolve({ code, text }));
  });
}

/**
 * What a terminal shows at the end: applies the only cursor movement the live view uses (`ESC[nF`
 * up n lines, then `ESC[J` erase below) and drops colour.
 */
function finalScreen(text: string): string[] {
  const screen: string[] = [];
  let current = '';
  for (const part of text.replace(/\r/g, '').split(/(\x1b\[\d+F\x1b\[J|\n)/)) {
    const up = /^\x1b\[(\d+)F\x1b\[J$/.exec(part);
    if (up) {
      screen.splice(screen.length - Number(up[1]));
      current = '';
    } else if (part === '\n') {
      screen.push(current);
      current = '';
    } else current += part;
  }
  if (current !== '') screen.push(current);
  return screen.map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''));
}

describe('what hello_world prints', () => {
  let prefix = '';
  beforeEach(async () => {
    prefix = await mkdtemp(join(tmpdir(), 'hello-output-'));
  });
  afterEach(async () => {
    await rm(prefix, { recursive: true, force: true });
  });

  it('off a TTY: one start and one done line per step, then the summary; a rerun prints only the summary', async () => {
    const first = await runNode(['hello_world.js', '--prefix', prefix]);
    expect(first.code, first.stderr).toBe(0);
    expect(normalize(first.stderr)).toBe(
      [
        '▶ hello_world/data-d50b06 started: no earlier output',
        '✓ hello_world/data-d50b06 done in T',
        '▶ hello_world/stats-b5daf3 started: no earlier output',
        '✓ hello_world/stats-b5daf3 done in T',
        SUMMARY_RAN,
        '',
      ].join('\n'),
    );
    expect(first.stdout).toBe('');
    const second = await runNode(['hello_world.js', '--prefix', prefix]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toBe(`${SUMMARY_SKIPPED}\n`);
  });

  it('--quiet prints the summary only; --verbose every state change and log line', async () => {
    const quiet = await runNode(['hello_world.js', '--prefix', prefix, '--quiet']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe(`${SUMMARY_RAN}\n`);
    const verbose = await runNode(['hello_world.js', '--prefix', prefix, '--verbose']);
    expect(verbose.code, verbose.stderr).toBe(0);
    expect(verbose.stderr).toContain('↷ hello_world/stats-b5daf3 skipped: already succeeded');
    expect(verbose.stderr).toContain('[executor] INFO Skip hello_world/stats-b5daf3: already succeeded');
    expect(verbose.stderr).toContain('[executor] INFO Executor info written to');
  });

  it('a usage error is one line pointing at --help, with the pattern as typed', async () => {
    const r = await runNode(['hello_world.js', '--prefix', prefix, '--run-only', 'myexp/totl']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: --run-only "myexp/totl" matched no step; steps: hello_world/data, hello_world/stats (see hello_world.js --help)\n');
  });

  it('on a TTY: a coloured live view whose block is replaced, each step finishing once, ending with the summary', async () => {
    const r = await runOnTty(['--prefix', prefix], {});
    expect(r.code, r.text).toBe(0);
    expect(r.text).toContain('\x1b[32m✓\x1b[39m');
    const plain = r.text.replace(/\x1b\[[0-9;]*m/g, '');
    // Each event reaches the terminal once: no repeated lines, no log lines beside the view.
    expect(plain.match(/hello_world\/data-d50b06 done/g)).toHaveLength(1);
    expect(plain.match(/hello_world\/stats-b5daf3 done/g)).toHaveLength(1);
    expect(plain).not.toContain('[executor]');
    expect(normalize(finalScreen(r.text).join('\n'))).toBe(
      ['✓ hello_world/data-d50b06 done in T', '✓ hello_world/stats-b5daf3 done in T', SUMMARY_RAN].join('\n'),
    );
  });

  it('on a TTY with NO_COLOR: the same view without colour', async () => {
    const r = await runOnTty(['--prefix', prefix], { NO_COLOR: '1' });
    expect(r.code, r.text).toBe(0);
    expect(r.text).not.toMatch(/\x1b\[[0-9;]*m/);
    expect(finalScreen(r.text).at(-1)).toBe(SUMMARY_RAN);
  });
});
