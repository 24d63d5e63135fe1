import { describe, expect, it } from 'vitest';
import { isFailedStatus, parseStatusText } from './status.js';

describe('parseStatusText()', () => {
  it('reads a bare token, trimmed', () => {
    expect(parseStatusText('SUCCESS')).toBe('SUCCESS');
    expect(parseStatusText('  RUNNING\n')).toBe('RUNNING');
  });

  it('reads an empty or blank file as no status', () => {
    expect(parseStatusText('')).toBeNull();
    expect(parseStatusText('\n \n')).toBeNull();
  });

  it('reads a legacy JSON-lines log (WAITING, RUNNING, SUCCESS) as its last status', () => {
    const log = [
      '{"date": "2024-01-01T00:00:00", "status": "WAITING", "message": null, "ray_task_id": "x"}',
      '{"date": "2024-01-01T00:00:01", "status": "RUNNING", "message": null, "ray_task_id": "x"}',
      '{"date": "2024-01-01T00:00:02", "status": "SUCCESS", "message": null, "ray_task_id": "x"}',
      '',
    ].join('\n');
    expect(parseStatusText(log)).toBe('SUCCESS');
  });

  it('skips unparsable lines of a legacy log and falls back to the last line when none parse', () => {
    expect(parseStatusText('{"status": "FAILED"}\n{torn')).toBe('FAILED');
    expect(parseStatusText('{torn\n{also torn')).toBe('{also torn');
  });

  it('classifies FAILED and DEP_FAILED as failed', () => {
    expect(isFailedStatus('FAILED')).toBe(true);
    expect(isFailedStatus('DEP_FAILED')).toBe(true);
    expect(isFailedStatus('SUCCESS')).toBe(false);
    expect(isFailedStatus(null)).toBe(false);
  });
});
