import { describe, expect, it } from 'vitest';
import { failureLineOf, withCause } from './failure-line.js';

describe('failure lines of a task', () => {
  it('recognises the executor, CLI and traceback forms, without colour', () => {
    expect(failureLineOf('\x1b[31mFAILED\x1b[39m fail/b-ceb55e: vocab.json missing \x1b[2m[ENOENT]\x1b[22m')).toBe('FAILED fail/b-ceb55e: vocab.json missing [ENOENT]');
    expect(failureLineOf('error: --prefix /proc/x is on procfs')).toBe('error: --prefix /proc/x is on procfs');
    expect(failureLineOf('ValueError: bad shape')).toBe('ValueError: bad shape');
    expect(failureLineOf('    at loadVocabulary (/x.js:1:2)')).toBeNull();
    expect(failureLineOf('▶ a-1 started: no earlier output')).toBeNull();
    expect(failureLineOf(`error: ${'x'.repeat(400)}`)).toHaveLength(300);
  });

  it('appends the cause to a failed exit status only', () => {
    expect(withCause('Exit code 1', 'error: boom')).toBe('Exit code 1: error: boom');
    expect(withCause('Exit code 1', null)).toBe('Exit code 1');
    expect(withCause('', 'error: boom')).toBe('');
  });
});
