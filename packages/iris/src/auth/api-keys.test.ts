import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { apiKeyId, apiKeyMatches, generateApiKey, mintJobToken, redactCredentials, verifyJobToken } from './api-keys.js';

describe('API keys', () => {
  it('generates distinct keys whose id is readable and whose hash matches only the key itself', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a.key).not.toBe(b.key);
    expect(apiKeyId(a.key)).toBe(a.keyId);
    expect(apiKeyMatches(a.key, a.hash)).toBe(true);
    expect(apiKeyMatches(b.key, a.hash)).toBe(false);
    expect(apiKeyMatches(`${a.key}x`, a.hash)).toBe(false);
    expect(a.hash.includes(Buffer.from(a.key))).toBe(false);
  });

  it('reads no id from a malformed key', () => {
    for (const bad of ['', 'iris-key-', 'iris-key-xyz.abc', `iris-key-${'0'.repeat(16)}.short`, 'Bearer iris-key-0']) expect(apiKeyId(bad)).toBeNull();
  });

  it('redacts keys and job tokens from text', () => {
    const { key } = generateApiKey();
    const job = mintJobToken(randomBytes(32), '/alice/train');
    const text = redactCredentials(`failed with ${key} and ${job}.`);
    expect(text).not.toContain(key.split('.')[1]!);
    expect(text).not.toContain(job);
    expect(text).toContain('iris-key-<redacted>');
  });
});

describe('job tokens', () => {
  it('verify only with the secret that signed them and name their job', () => {
    const secret = randomBytes(32);
    const token = mintJobToken(secret, '/alice/train/eval');
    expect(verifyJobToken(secret, token)).toBe('/alice/train/eval');
    expect(verifyJobToken(randomBytes(32), token)).toBeNull();
    const forged = mintJobToken(secret, '/bob/x').split('.');
    const swapped = `iris-job.${forged[1]}.${token.split('.')[2]}`;
    expect(verifyJobToken(secret, swapped)).toBeNull();
    expect(verifyJobToken(secret, `${token}.extra`)).toBeNull();
    expect(verifyJobToken(secret, 'iris-key-whatever')).toBeNull();
  });
});
