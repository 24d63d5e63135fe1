import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { credentialFor } from './cli-context.js';
import { credentialsPath, storeKey, storedKey } from './credentials.js';

let home = '';
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'iris-credentials-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('CLI credentials', () => {
  it('stores a key per controller address in a 0600 file and forgets it on logout', () => {
    const env = { IRIS_HOME: join(home, 'iris') };
    storeKey(env, '10.0.0.1:10000', 'iris-key-a');
    storeKey(env, '127.0.0.1:5000', 'iris-key-b');
    expect(statSync(credentialsPath(env)).mode & 0o777).toBe(0o600);
    expect(statSync(env.IRIS_HOME).mode & 0o777).toBe(0o700);
    expect(storedKey(env, '10.0.0.1:10000')).toBe('iris-key-a');
    storeKey(env, '10.0.0.1:10000', undefined);
    expect(storedKey(env, '10.0.0.1:10000')).toBeUndefined();
    expect(storedKey(env, '127.0.0.1:5000')).toBe('iris-key-b');
  });

  it('refuses a credentials file it did not write with IRIS_INVALID_ARGUMENT', () => {
    const env = { IRIS_HOME: home };
    writeFileSync(credentialsPath(env), '{"not":"ours"}');
    expect(() => storedKey(env, 'x:1')).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });

  it('sends a task\u2019s own token inside a task, else IRIS_API_KEY, the stored key, a recorded token, IRIS_AUTH_TOKEN', () => {
    const env: NodeJS.ProcessEnv = { IRIS_HOME: home };
    storeKey(env, 'h:1', 'stored');
    expect(credentialFor({ ...env, IRIS_TASK_ID: '/a/b/0', IRIS_AUTH_TOKEN: 'job', IRIS_API_KEY: 'k' }, 'h:1')).toBe('job');
    expect(credentialFor({ ...env, IRIS_API_KEY: 'k', IRIS_AUTH_TOKEN: 't' }, 'h:1')).toBe('k');
    expect(credentialFor({ ...env, IRIS_AUTH_TOKEN: 't' }, 'h:1')).toBe('stored');
    expect(credentialFor({ ...env, IRIS_AUTH_TOKEN: 't' }, 'other:2', 'recorded')).toBe('recorded');
    expect(credentialFor({ ...env, IRIS_AUTH_TOKEN: 't' }, 'other:2')).toBe('t');
    expect(credentialFor(env, 'other:2')).toBeUndefined();
  });
});
