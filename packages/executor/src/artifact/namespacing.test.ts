import { describe, expect, it } from 'vitest';
import { sanitizeUserSegment, userNamespacedName, usernameSegment } from './namespacing.js';

const prov = (builtBy: unknown) => ({ MARIN_PROVENANCE: JSON.stringify({ tree_hash: '', base_commit: '', dirty: false, built_by: builtBy }), USER: 'os-login' });

describe('per-user namespacing', () => {
  it('sanitizes as Marin does: email domain dropped, lowercased, other characters collapsed to -', () => {
    expect(sanitizeUserSegment('Russell.Power@host')).toBe('russell-power');
    expect(sanitizeUserSegment(' Bob Smith ')).toBe('bob-smith');
  });

  it('prefers the launch provenance over the OS login, and ignores a malformed one', () => {
    expect(usernameSegment(prov('Alice'))).toBe('alice');
    expect(usernameSegment({ MARIN_PROVENANCE: '{"built_by": "alice"}', USER: 'os-login' })).toBe('os-login');
  });

  it('namespaces mutable versions only', () => {
    expect(userNamespacedName('train/x', 'dev', prov('alice'))).toBe('users/alice/train/x');
    expect(userNamespacedName('train/x', '2026.11.25', prov('alice'))).toBe('train/x');
  });

  it('refuses a user that sanitizes to nothing', () => {
    expect(() => usernameSegment(prov('@@@'))).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }) as Error);
  });
});
