import { describe, expect, it } from 'vitest';
import { logLevelOf } from './log-level.js';

describe('logLevelOf', () => {
  it('reads absl/glog lines as JAX and Levanter write them, with or without the year and a tag', () => {
    expect(logLevelOf('I1126 02:39:22.123456 140680942713728 train_lm.py:120] step 3')).toBe('info');
    expect(logLevelOf('W1126 02:39:22.123456 1 xla_bridge.py:900] No GPU/TPU found')).toBe('warning');
    expect(logLevelOf('E1126 02:39:22.123456 1 x.cc:1] boom')).toBe('error');
    expect(logLevelOf('F1126 02:39:22.123456 1 x.cc:1] fatal')).toBe('error');
    expect(logLevelOf('I20261126 02:39:22 140680942713728 levanter.json_logger {"step": 1}')).toBe('info');
    expect(logLevelOf('[local-train_lm-quickstart-94c6d3-3c15cecd] W20261126 02:39:22 1 jax warning')).toBe('warning');
  });

  it("reads Python logging's default format and a leading level word", () => {
    expect(logLevelOf('WARNING:root:disk nearly full')).toBe('warning');
    expect(logLevelOf('ERROR:levanter.trainer:step failed')).toBe('error');
    expect(logLevelOf('INFO: started')).toBe('info');
    expect(logLevelOf('[DEBUG] cache hit')).toBe('debug');
    expect(logLevelOf('CRITICAL out of memory')).toBe('error');
  });

  it('reads timestamped records with the level after the time and logger name', () => {
    expect(logLevelOf('2026-11-26 02:39:22,123 - levanter.trainer - WARNING - slow step')).toBe('warning');
    expect(logLevelOf('2026-11-26 02:39:22,123 INFO levanter: Training')).toBe('info');
    expect(logLevelOf('2026-11-26T02:39:22Z ERROR name: failed')).toBe('error');
    expect(logLevelOf('02:39:22 [WARNING] retrying')).toBe('warning');
  });

  it('takes a Python traceback and its exception line as errors', () => {
    expect(logLevelOf('Traceback (most recent call last):')).toBe('error');
    expect(logLevelOf('ValueError: bad config')).toBe('error');
    expect(logLevelOf('draccus.utils.DecodingError: missing field')).toBe('error');
  });

  it('finds no level in plain output, progress bars, or a level word inside the message', () => {
    expect(logLevelOf('hello from the dashboard')).toBeNull();
    expect(logLevelOf('Loading checkpoint shards: 100%|██████████| 2/2')).toBeNull();
    expect(logLevelOf('the ERROR count was 0')).toBeNull();
    expect(logLevelOf('INFORMATION follows')).toBeNull();
    expect(logLevelOf('I am done')).toBeNull();
    expect(logLevelOf('')).toBeNull();
  });
});
