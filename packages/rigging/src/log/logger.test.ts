import { afterEach, describe, expect, it, vi } from 'vitest';
import { createStderrLogger, silentLogger } from './logger.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createStderrLogger()', () => {
  it('writes one line per message to stderr with the name and level, nothing to stdout', () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const log = createStderrLogger('executor');
    log.info('Skip a: already succeeded');
    log.warn('duplicate step');
    expect(err.mock.calls.map((c) => c[0])).toEqual(['[executor] INFO Skip a: already succeeded\n', '[executor] WARN duplicate step\n']);
    expect(out).not.toHaveBeenCalled();
  });
});

describe('silentLogger', () => {
  it('writes nothing', () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    silentLogger.info('x');
    silentLogger.warn('y');
    expect(err).not.toHaveBeenCalled();
  });
});
