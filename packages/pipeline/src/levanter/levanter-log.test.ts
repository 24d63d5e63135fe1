import { describe, expect, it } from 'vitest';
import { lastErrorLine, parseJsonLoggerRecords, resumedFromStep } from './levanter-log.js';

const STDERR_RECORD =
  'I20261124 06:12:23 1400 levanter.json_logger {"tracker": "json_logger", "event": "log", "step": 19, "metrics": {"train/loss": 6.02}}';
const FILE_RECORD =
  '2026-11-24T06:12:23 - 0 - levanter.json_logger - json_logger.py:77 - INFO :: {"tracker": "json_logger", "event": "finish", "summary": {"global_step": 19}}';

describe('parseJsonLoggerRecords()', () => {
  it('reads records from job output and from the log file format, skipping other lines', () => {
    const records = parseJsonLoggerRecords([STDERR_RECORD, 'I20261124 levanter.trainer First train step', FILE_RECORD, 'levanter.json_logger {"tracker": "json_logger", "ev']);
    expect(records).toEqual([
      { tracker: 'json_logger', event: 'log', step: 19, metrics: { 'train/loss': 6.02 } },
      { tracker: 'json_logger', event: 'finish', summary: { global_step: 19 } },
    ]);
  });
});

describe('lastErrorLine()', () => {
  it('returns the exception line a traceback ends with', () => {
    const lines = ['Traceback (most recent call last):', '  File "x.py", line 1', 'AssertionError: num_heads=3 not divisible by num_kv_heads=2.', 'I20261124 06:12:23 1400 levanter cleanup', ''];
    expect(lastErrorLine(lines)).toBe('AssertionError: num_heads=3 not divisible by num_kv_heads=2.');
    expect(lastErrorLine(['draccus.utils.DecodingError: `model`: bad'])).toBe('draccus.utils.DecodingError: `model`: bad');
  });

  it('keeps the continuation lines of the exception message', () => {
    const lines = ['draccus.utils.DecodingError: `model`: Failed when parsing value', '\tUnderlying error is "AssertionError: num_heads=3 not divisible by num_kv_heads=2."', 'I20261124 06:12:23 1400 levanter done'];
    expect(lastErrorLine(lines)).toBe('draccus.utils.DecodingError: `model`: Failed when parsing value Underlying error is "AssertionError: num_heads=3 not divisible by num_kv_heads=2."');
  });

  it('falls back to the last non-blank line', () => {
    expect(lastErrorLine(['starting', 'killed by signal', ' '])).toBe('killed by signal');
    expect(lastErrorLine([])).toBeNull();
  });
});

describe('resumedFromStep()', () => {
  it('finds the resume step Levanter logs', () => {
    expect(resumedFromStep(['I2026 __main__ Resuming training from step 5'])).toBe(5);
    expect(resumedFromStep(['I2026 __main__ No checkpoint found. Starting from scratch.'])).toBeNull();
  });
});
