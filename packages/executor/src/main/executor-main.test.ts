import { describe, expect, it } from 'vitest';
import { pyQuoteUrl } from './executor-main.js';

describe('pyQuoteUrl()', () => {
  it('percent-encodes like Python urllib.parse.quote with "/" safe', () => {
    expect(pyQuoteUrl('gs://marin-us-central1/experiments/hello_world-abc123.json')).toBe(
      'gs%3A//marin-us-central1/experiments/hello_world-abc123.json',
    );
    expect(pyQuoteUrl('a b~c+d')).toBe('a%20b~c%2Bd');
    expect(pyQuoteUrl('é')).toBe('%C3%A9');
  });
});
