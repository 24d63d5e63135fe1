import { Metadata } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { bearerTokenMatches } from './token-auth.js';

describe('bearerTokenMatches()', () => {
  const withAuth = (value?: string) => {
    const m = new Metadata();
    if (value !== undefined) m.set('authorization', value);
    return m;
  };

  it('allows everything when no token is configured', () => {
    expect(bearerTokenMatches(withAuth(), undefined)).toBe(true);
  });

  it('accepts the right token and refuses a missing or wrong one', () => {
    expect(bearerTokenMatches(withAuth('Bearer s3cret'), 's3cret')).toBe(true);
    expect(bearerTokenMatches(withAuth(), 's3cret')).toBe(false);
    expect(bearerTokenMatches(withAuth('Bearer nope'), 's3cret')).toBe(false);
    expect(bearerTokenMatches(withAuth('s3cret'), 's3cret')).toBe(false);
  });
});
