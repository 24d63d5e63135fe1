import { describe, expect, it } from 'vitest';
import { parseExecutorArgs } from './cli-args.js';

describe('parseExecutorArgs()', () => {
  it('returns the defaults for no arguments', () => {
    expect(parseExecutorArgs([])).toEqual({
      prefix: null,
      executorInfoBasePath: null,
      dryRun: false,
      forceRunFailed: true,
      runOnly: null,
      forceRun: null,
      maxConcurrent: null,
      progress: 'auto',
      statusInterval: null,
      help: false,
      verbose: false,
      quiet: false,
      json: false,
      runStep: null,
      stepConfigFile: null,
      backend: null,
    });
  });

  it('takes --quiet and repeatable --force-run patterns, keeps a pattern as typed in errors, and refuses --quiet with --verbose', () => {
    const args = parseExecutorArgs(['--quiet', '--force-run', 'a/b', '--force_run=["^c$"]']);
    expect(args.quiet).toBe(true);
    expect(args.forceRun).toEqual(['a/b', '^c$']);
    expect(() => parseExecutorArgs(['--quiet', '--verbose'])).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }));
    let message = '';
    try {
      parseExecutorArgs(['--force-run', 'my/(exp']);
    } catch (e) {
      message = (e as Error).message;
    }
    // Shown as typed: not `my\/(exp` (RegExp.source) nor double-escaped.
    expect(message).toContain('"my/(exp"');
  });

  it('takes --status-interval in seconds and refuses a value that is not a positive number', () => {
    expect(parseExecutorArgs(['--status-interval', '2.5']).statusInterval).toBe(2.5);
    expect(parseExecutorArgs(['--status_interval=30']).statusInterval).toBe(30);
    for (const bad of ['0', '-1', 'soon', '']) {
      expect(() => parseExecutorArgs(['--status-interval', bad])).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT', details: expect.objectContaining({ usage: true }) }));
    }
  });

  it('takes --backend local|iris|ray and rejects anything else as a usage error', () => {
    expect(parseExecutorArgs(['--backend', 'ray']).backend).toBe('ray');
    expect(() => parseExecutorArgs(['--backend=slurm'])).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT', details: expect.objectContaining({ usage: true }) }));
  });

  it('suggests the closest flag for a typo', () => {
    expect(() => parseExecutorArgs(['--dry-rn'])).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT', details: expect.objectContaining({ suggestions: ['--dry-run'] }) }),
    );
    expect(() => parseExecutorArgs(['--max_concurent', '2'])).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ suggestions: ['--max-concurrent'] }) }),
    );
    expect(() => parseExecutorArgs(['--zzzzzz'])).toThrow(expect.objectContaining({ details: expect.objectContaining({ suggestions: [] }) }));
  });

  it('parses --json and --verbose as booleans', () => {
    expect(parseExecutorArgs(['--json', '--verbose', 'false'])).toMatchObject({ json: true, verbose: false });
  });

  it('accepts --dry-run alone, --dry_run true and --dry-run=false', () => {
    expect(parseExecutorArgs(['--dry-run']).dryRun).toBe(true);
    expect(parseExecutorArgs(['--dry_run', 'true']).dryRun).toBe(true);
    expect(parseExecutorArgs(['--dry-run=false']).dryRun).toBe(false);
    expect(parseExecutorArgs(['--dry-run', 'YES', '--prefix', 'p'])).toMatchObject({ dryRun: true, prefix: 'p' });
  });

  it('does not consume a following non-boolean word after a boolean flag', () => {
    expect(() => parseExecutorArgs(['--dry-run', 'later'])).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }),
    );
  });

  it('accepts --force-run-failed false and --max_concurrent 2', () => {
    const args = parseExecutorArgs(['--force-run-failed', 'false', '--max_concurrent', '2']);
    expect(args.forceRunFailed).toBe(false);
    expect(args.maxConcurrent).toBe(2);
    expect(parseExecutorArgs(['--max-concurrent=3']).maxConcurrent).toBe(3);
  });

  it('accumulates repeated --run-only and parses a JSON array without splitting on commas', () => {
    expect(parseExecutorArgs(['--run-only', 'a', '--run_only=b,c']).runOnly).toEqual(['a', 'b,c']);
    expect(parseExecutorArgs(['--run_only', '["^a", "b"]']).runOnly).toEqual(['^a', 'b']);
  });

  it('takes paths for --prefix and --executor_info_base_path in both spellings', () => {
    const args = parseExecutorArgs(['--prefix=gs://b/x', '--executor_info_base_path', '/tmp/info']);
    expect(args).toMatchObject({ prefix: 'gs://b/x', executorInfoBasePath: '/tmp/info' });
  });

  it('parses --progress and --help', () => {
    expect(parseExecutorArgs(['--progress', 'live']).progress).toBe('live');
    expect(parseExecutorArgs(['--help']).help).toBe(true);
    expect(() => parseExecutorArgs(['--progress', 'fancy'])).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }),
    );
  });

  it.each([
    [['--bogus']],
    [['positional']],
    [['--max-concurrent', '0']],
    [['--max-concurrent', 'two']],
    [['--run-only', '(']],
    [['--run-only', '[1, 2]']],
    [['--prefix']],
    [['--dry-run=maybe']],
  ])('rejects %j as a usage error', (argv) => {
    expect(() => parseExecutorArgs(argv)).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT', details: expect.objectContaining({ usage: true }) }),
    );
  });
});
